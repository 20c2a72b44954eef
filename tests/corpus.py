"""Inputs for normalize_error: generated edge cases and real log messages.
Shared by the conformance test and the benchmark."""
import gzip
import json
import random
from pathlib import Path

# The message text of loghub_2k's logs, with its licence (make loghub-fixture).
LOGHUB = Path(__file__).resolve().parent / "fixtures" / "loghub_2k" / "messages.json.gz"

ORIGINAL_SCENARIOS = [
    "Cannot find module '/Users/dev/project/src/index.ts'",
    "Error at line 42 in /src/app.js: unexpected token",
    "x" * 300,
    "  " + "y" * 150 + "  " + "z" * 150,
]

# Pieces the generator glues together: every character class the rules
# treat specially, and the lookalikes they must not.
ATOMS = [
    "/", "/", ".", "-", "@", "_", "'", "'", '"', '"', " ", " ", "a", "Z", "é",
    "7", "42", "2024", "0", "١٢", "１２", "߀߁", "²³",
    "한국어", "에러", "모듈을 찾을 수 없습니다", "😀", "👍🏽", "𝒳",
    "\ufeff", "\u00a0", "\u0085", "\u2028", "\u2029", "\u3000", "\u180e", "\u200b",
    "\r", "\n", "\r\n", "\t", "\v", "\f",
    "''", '""', "' '", "src/app.js", "/usr/lib/node_modules", "./a.b", "@scope/pkg",
    "~/x", "C:\\Users\\dev", "http://host:8080/path?q=1", "Error:", " at ", "line ", ":",
    "(", ")", "<", ">", "<PATH>", "<N>", "<STR>", "%", "\\",
]
JS_SPACE = ["\ufeff", "\u00a0", " ", "\t", "\n", "\u2028", "\u3000", "\u2000"]
NOT_JS_SPACE = ["\u0085", "\u180e", "\u200b"]


def utf16_units(s):
    return len(s.encode("utf-16-le")) // 2


def filler(rng, units, astral_share=0.3):
    """Quote-free text of exactly `units` UTF-16 units."""
    out, n = [], 0
    while n < units:
        if units - n >= 2 and rng.random() < astral_share:
            out.append(rng.choice(["😀", "👍", "𝒳", "🚀"]))
            n += 2
        else:
            out.append(rng.choice("abcXYZ 한글-./@_é"))
            n += 1
    return "".join(out)


def generated(seed, count):
    """`count` generated inputs; the same seed gives the same inputs."""
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        kind = i % 6
        if kind in (0, 1):  # random soup of atoms
            cases.append("".join(rng.choice(ATOMS) for _ in range(rng.randint(0, 60))))
        elif kind == 2:  # quotes of 99..101 units of content, ASCII or astral
            q = rng.choice("'\"")
            body = filler(rng, rng.choice([0, 1, 99, 100, 100, 101, 102]))
            cases.append(rng.choice(["", "Error: ", "x "]) + q + body + q + rng.choice(["", " tail", " '", ' "']))
        elif kind == 3:  # an astral character straddling the 200-unit cut
            before = filler(rng, rng.choice([198, 199, 200]), astral_share=0)
            cases.append(before + rng.choice(["😀", "👍🏽", "𝒳"]) + filler(rng, rng.randint(0, 20)))
        elif kind == 4:  # whitespace around the cut and at both ends
            pad = lambda: "".join(rng.choice(JS_SPACE + NOT_JS_SPACE) for _ in range(rng.randint(0, 4)))
            body = filler(rng, rng.randint(190, 205), astral_share=0.1)
            cases.append(pad() + body + pad() + filler(rng, rng.randint(0, 10)))
        else:  # error-shaped: paths, numbers, quotes mixed with the rest
            parts = [rng.choice(["Cannot find module ", "Error at line ", "ENOENT: ", "TypeError: ", "에러: "])]
            for _ in range(rng.randint(1, 8)):
                parts.append(rng.choice([
                    "/" + "/".join(rng.choice(["src", "a.b", "x-1", "@org", "v2_0", "한"]) for _ in range(rng.randint(1, 4))),
                    str(rng.randint(0, 100000)), "'" + filler(rng, rng.randint(0, 12)) + "'",
                    '"' + filler(rng, rng.randint(0, 12)) + '"', rng.choice(ATOMS), " ",
                ]))
            cases.append("".join(parts))
    return cases


def loghub_messages():
    """The message text of every loghub_2k log line (about 32k real lines)."""
    with gzip.open(LOGHUB, "rt", encoding="utf-8") as f:
        return json.load(f)
