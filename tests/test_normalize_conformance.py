"""normalize_error() against an independent JavaScript reference of the
the key's rules: same bytes for every input, or the knowledge base splits."""
import json
import os
import random
import subprocess

from conftest import ROOT, connection, sqlite
from corpus import ORIGINAL_SCENARIOS, generated, loghub_messages, utf16_units

REFERENCE = ROOT / "tests" / "reference" / "normalize.mjs"
GENERATED = 12_000


def javascript_results(inputs, tmp_path):
    src = tmp_path / "inputs.json"
    # ensure_ascii: astral characters travel as surrogate pairs, which is
    # how JavaScript holds them anyway.
    src.write_text(json.dumps(inputs, ensure_ascii=True))
    out = subprocess.run(["node", str(REFERENCE), str(src)], capture_output=True, text=True, check=True).stdout
    # A surrogate pair cut at 200 units leaves a lone surrogate; written to
    # UTF-8 (as the original database did), it becomes U+FFFD.
    return [s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace") for s in json.loads(out)]


def extension_results(inputs, tmp_path):
    db = tmp_path / "inputs.db"
    with connection(db) as conn:
        conn.execute("CREATE TABLE inputs (id INTEGER PRIMARY KEY, text TEXT)")
        conn.executemany("INSERT INTO inputs VALUES (?, ?)", enumerate(inputs))
    sqlite(db, "CREATE TABLE results AS SELECT id, normalize_error(text) AS key FROM inputs")
    with connection(db) as conn:
        return [key for _, key in conn.execute("SELECT id, key FROM results ORDER BY id")]


def test_generated_inputs_cover_the_edge_cases():
    """The generator must really produce the boundaries the rules have."""
    inputs = generated(1, GENERATED)
    quoted = [s for s in inputs if s[:1] in "'\"" or "Error: '" in s or 'Error: "' in s or s.startswith("x ")]
    assert any(utf16_units(s) >= 200 and any(ord(c) > 0xFFFF for c in s[195:205]) for s in inputs)
    for needle in ["١٢", "１２", "\ufeff", "\u00a0", "\u0085", "\u2028", "\r", "\n", "''", "한국어", "😀"]:
        assert any(needle in s for s in inputs), needle
    assert len(quoted) > 1000


def test_normalize_error_matches_the_javascript_reference(tmp_path):
    seed = int(os.environ.get("ERRKB_TEST_SEED", random.randrange(2**32)))
    inputs = ORIGINAL_SCENARIOS + generated(seed, GENERATED) + loghub_messages()
    expected = javascript_results(inputs, tmp_path)
    actual = extension_results(inputs, tmp_path)
    assert len(actual) == len(expected) == len(inputs)
    mismatches = [(i, inputs[i], e, a) for i, (e, a) in enumerate(zip(expected, actual)) if e != a]
    assert not mismatches, (
        f"ERRKB_TEST_SEED={seed}: {len(mismatches)} of {len(inputs)} differ; first: {mismatches[:3]!r}"
    )
    assert len(inputs) >= 10_000


def normalized(text):
    literal = "'" + text.replace("'", "''") + "'"
    return sqlite(":memory:", f"SELECT normalize_error({literal})").stdout.rstrip("\n")


def test_the_original_systems_scenarios():
    assert normalized("Cannot find module '/Users/dev/project/src/index.ts'") == "Cannot find module <STR>"
    assert normalized("Error at line 42 in /src/app.js: unexpected token") == "Error at line <N> in <PATH>: unexpected token"
