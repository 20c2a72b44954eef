"""Retrieval end to end on real error messages (tests/real_errors.py): a
knowledge base learns each problem's stored error with its fix, the batch
job embeds it, and every query goes through normalize_error and kb_search
as a hook's would. Shared by tests/test_retrieval.py and make bench."""
import json
import subprocess

from conftest import EXTENSION, runner
from real_errors import corpus


def search(db, error):
    literal = error.replace("'", "''")
    out = subprocess.run(
        ["sqlite3", "-json", "-cmd", f".load {EXTENSION.with_suffix('')}", str(db),
         f"SELECT stage, distance, resolution FROM kb_search(normalize_error('{literal}'))"],
        capture_output=True, text=True, check=True).stdout
    return json.loads(out)[0] if out.strip() else None


def nearest(db, error):
    """L2 distance to the nearest stored vector, whatever kb_search decided."""
    literal = error.replace("'", "''")
    out = subprocess.run(
        ["sqlite3", "-cmd", f".load {EXTENSION.with_suffix('')}", str(db),
         f"SELECT distance FROM vec_error_kb WHERE embedding MATCH embed(normalize_error('{literal}')) AND k = 1"],
        capture_output=True, text=True, check=True).stdout
    return float(out) if out.strip() else None


def evaluate(tmp_path):
    data = corpus()
    db = tmp_path / "retrieval.db"
    for name, fix, stored, _ in data["problems"]:
        runner("--db", str(db), "record", "--error", stored, "--resolution", fix, check=True)
    runner("--db", str(db), "embed", check=True)
    results = []
    for name, fix, stored, queries in data["problems"]:
        for query in queries:
            hit = search(db, query)
            verdict = "missed" if hit is None else ("correct" if hit["resolution"] == fix else "wrong")
            results.append({"problem": name, "query": query, "verdict": verdict, "hit": hit,
                            "nearest": nearest(db, query)})
    for query in data["unrelated"]:
        hit = search(db, query)
        results.append({"problem": None, "query": query, "verdict": "false hit" if hit else "rejected", "hit": hit,
                        "nearest": nearest(db, query)})
    count = lambda v: sum(r["verdict"] == v for r in results)
    answered = count("correct") + count("wrong") + count("false hit")
    positives = sum(len(q) for *_, q in data["problems"])
    return {
        "results": results,
        "positives": positives,
        "negatives": len(data["unrelated"]),
        "correct": count("correct"),
        "wrong": count("wrong"),
        "false_hits": count("false hit"),
        "precision": count("correct") / answered if answered else 1.0,
        "recall": count("correct") / positives,
    }
