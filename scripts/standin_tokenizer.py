#!/usr/bin/env python3
"""Write a tokenizer.json shaped like paraphrase-multilingual-MiniLM-L12-v2's
(XLM-R): a SentencePiece Unigram model of 250,002 pieces with Metaspace
pre-tokenization and <s> … </s> framing. The pieces are made up (words of
several scripts and random fragments), so it costs what the real one costs
to load and run, without the real one's download.

    standin_tokenizer.py OUT_DIR [PIECES]

PIECES (default 250,002) makes a smaller one, for tests that pair it with
a smaller model.
"""
import json
import random
import sys
from pathlib import Path

VOCAB = 250_002
SPECIAL = ["<s>", "<pad>", "</s>", "<unk>"]
ALPHABETS = [
    "abcdefghijklmnopqrstuvwxyz",
    "абвгдежзийклмнопрстуфхцчшщъыьэюя",
    "αβγδεζηθικλμνξοπρστυφχψω",
    "가나다라마바사아자차카타파하게네데레메베세에제체케테페헤고노도로모보소오조초코토포호",
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん",
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
    "0123456789",
]


def pieces(rng, size):
    seen = set(SPECIAL)
    out = []
    # Every single character first, as SentencePiece vocabularies have them.
    for alphabet in ALPHABETS:
        for c in alphabet + alphabet.upper():
            for p in (c, "▁" + c):
                if p not in seen:
                    seen.add(p)
                    out.append(p)
    while len(out) + len(SPECIAL) < size:
        alphabet = rng.choice(ALPHABETS)
        p = "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 9)))
        if rng.random() < 0.6:
            p = "▁" + p
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def main(out_dir, size=VOCAB):
    rng = random.Random(250002)
    vocab = [[s, 0.0] for s in SPECIAL] + [[p, -rng.uniform(3, 18)] for p in pieces(rng, size)]
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True} for i, s in enumerate(SPECIAL)
        ],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {s: {"id": s, "ids": [i], "tokens": [s]} for i, s in enumerate(SPECIAL) if s != "<unk>"},
        },
        "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": False},
    }
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False))
    (out / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 512}))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    main(sys.argv[1], *(int(n) for n in sys.argv[2:]))
