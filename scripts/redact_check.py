#!/usr/bin/env python3
"""How well redact_secrets() does on tests/fixtures/redaction/corpus.json,
through the sqlite3 shell with the built extension (`make redact-check`).

A secret counts as fully redacted when no 8 consecutive characters of it
(the whole of it, if shorter) are left in the output. A look-alike counts
as touched when the output differs from the input at all.

  python3 scripts/redact_check.py [--extension dist/errkb.so] [--json] [--min-recall 0.97 --max-touched 0.02]
"""
import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "redaction" / "corpus.json"
WINDOW = 8


def redact_all(extension, texts):
    """redact_secrets() of every text, in one sqlite3 shell run."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "texts.json"
        source.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
        sql = (f".load {Path(extension).with_suffix('')}\n.mode json\n"
               f"SELECT key AS i, redact_secrets(value) AS out FROM json_each(readfile('{source}')) ORDER BY key;\n")
        proc = subprocess.run(["sqlite3", ":memory:"], input=sql, capture_output=True, text=True, encoding="utf-8",
                              check=True)
    rows = json.loads(proc.stdout or "[]")
    return [row["out"] for row in rows]


def leaked(secret, output):
    """The first piece of the secret still in the output, or None."""
    if len(secret) <= WINDOW:
        return secret if secret in output else None
    for start in range(len(secret) - WINDOW + 1):
        piece = secret[start:start + WINDOW]
        if piece in output:
            return piece
    return None


def check(extension, secrets, lookalikes):
    outputs = redact_all(extension, [s["text"] for s in secrets] + lookalikes)
    by_format = defaultdict(lambda: [0, 0])
    misses = []
    for case, out in zip(secrets, outputs):
        piece = leaked(case["secret"], out)
        by_format[case["format"]][1] += 1
        if piece is None:
            by_format[case["format"]][0] += 1
        else:
            misses.append({"format": case["format"], "left": piece, "output": out[:300]})
    touched = [{"input": text, "output": out} for text, out in zip(lookalikes, outputs[len(secrets):]) if out != text]
    return {
        "secrets": len(secrets),
        "formats": len(by_format),
        "fully_redacted": len(secrets) - len(misses),
        "recall": (len(secrets) - len(misses)) / len(secrets),
        "lookalikes": len(lookalikes),
        "touched": len(touched),
        "touched_share": len(touched) / len(lookalikes),
        "by_format": {k: {"redacted": v[0], "of": v[1]} for k, v in sorted(by_format.items())},
        "misses": misses,
        "touched_cases": touched,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--extension", default=str(ROOT / "dist" / "errkb.so"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--min-recall", type=float)
    parser.add_argument("--max-touched", type=float)
    args = parser.parse_args()
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    held_out = corpus["held_out"]
    report = check(args.extension, corpus["secrets"] + held_out["secrets"],
                   corpus["lookalikes"] + held_out["lookalikes"])
    parts = {"tuned on": check(args.extension, corpus["secrets"], corpus["lookalikes"]),
             "held out": check(args.extension, held_out["secrets"], held_out["lookalikes"])}
    if args.json:
        print(json.dumps({"all": report, **parts}, indent=1, ensure_ascii=False))
    else:
        print("| part | secrets fully redacted | formats | look-alikes touched |")
        print("|---|---:|---:|---:|")
        for name, part in [*parts.items(), ("all", report)]:
            print(f"| {name} | {part['fully_redacted']}/{part['secrets']} ({part['recall']:.1%}) | {part['formats']} "
                  f"| {part['touched']}/{part['lookalikes']} ({part['touched_share']:.1%}) |")
        for miss in report["misses"]:
            print(f"  missed {miss['format']}: {miss['left']!r} left in {miss['output'][:160]!r}")
        for case in report["touched_cases"]:
            print(f"  touched: {case['input'][:100]!r}\n       -> {case['output'][:100]!r}")
    ok = True
    if args.min_recall is not None and report["recall"] < args.min_recall:
        print(f"FAIL: recall {report['recall']:.1%} < {args.min_recall:.0%}", file=sys.stderr)
        ok = False
    if args.max_touched is not None and report["touched_share"] > args.max_touched:
        print(f"FAIL: {report['touched_share']:.1%} of look-alikes touched > {args.max_touched:.0%}", file=sys.stderr)
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
