"""kb_search stage 3 (vector): stored vectors are placed
at chosen L2 distances from the query's real embedding, on both sides of
each threshold, with and without a keyword in common: the original system's (0.76 and
0.85, set through ERRKB_THRESHOLDS) and the test model's calibrated ones
(dist/model/errkb-thresholds.json, from make calibrate)."""
import json
import math
import struct

import pytest

from conftest import MODEL_DIR, RECORD_VECTOR_MODEL, connection, insert_kb, sqlite

pytestmark = pytest.mark.model  # the embedding model and ONNX Runtime (make model)

QUERY = "Cannot find module <STR> in the workspace"
SHARES_KEYWORD = "the module could not be located anywhere"      # shares "module"
NO_KEYWORD = "zzz qqq xxx"                                        # shares nothing


def embedding(text):
    literal = text.replace("'", "''")
    hex_blob = sqlite(":memory:", f"SELECT hex(embed('{literal}'))").stdout.strip()
    return list(struct.unpack("<384f", bytes.fromhex(hex_blob)))


def at_distance(q, distance, seed=1):
    """A unit vector at L2 `distance` from unit vector `q`: q turned
    towards a direction orthogonal to it (L2² = 2 − 2·cos)."""
    u = [math.sin(seed * (i + 1)) for i in range(len(q))]
    dot = sum(a * b for a, b in zip(u, q))
    u = [a - dot * b for a, b in zip(u, q)]
    norm = math.sqrt(sum(a * a for a in u))
    u = [a / norm for a in u]
    cos = 1 - distance * distance / 2
    sin = math.sqrt(1 - cos * cos)
    return [cos * a + sin * b for a, b in zip(q, u)]


def store(db, rows):
    """rows: (key, resolution, vector)."""
    insert_kb(db, [{"error_normalized": key, "resolution": res} for key, res, _ in rows])
    with connection(db) as conn:
        ids = dict(conn.execute("SELECT error_normalized, id FROM error_kb"))
    values = ", ".join(f"({ids[key]}, X'{struct.pack('<384f', *vec).hex()}')" for key, _, vec in rows)
    sqlite(db, f"INSERT INTO vec_error_kb(error_kb_id, embedding) VALUES {values}", RECORD_VECTOR_MODEL)


ORIGINAL = {"match_distance": 0.76, "keyword_check_distance": 0.85}
ORIGINAL_ENV = {"ERRKB_THRESHOLDS": "0.76,0.85"}


def search(db, env=ORIGINAL_ENV):
    out = sqlite(db, f"SELECT stage, round(distance, 3), error_normalized FROM kb_search('{QUERY}')",
                 env=env).stdout.strip()
    return out.split("|") if out else None


def calibrated():
    return json.loads((MODEL_DIR / "errkb-thresholds.json").read_text())


def boundary_cases(t):
    """(distance, key, found) on both sides of thresholds `t`."""
    m, k = t["match_distance"], t["keyword_check_distance"]
    cases = [(k + 0.005, SHARES_KEYWORD, False), (1.2, SHARES_KEYWORD, False)]
    if m >= 0.01:  # a match by distance alone exists
        cases += [(m - 0.005, NO_KEYWORD, True), (m + 0.005, NO_KEYWORD, False)]
    if k - m >= 0.01:  # a band where a shared keyword decides
        cases += [(max(m, 0.0) + 0.005, SHARES_KEYWORD, True), (k - 0.005, SHARES_KEYWORD, True),
                  (k - 0.005, NO_KEYWORD, False)]
    return cases


@pytest.fixture(scope="module")
def q():
    return embedding(QUERY)


@pytest.mark.parametrize("distance, key, found", boundary_cases(ORIGINAL))
def test_the_original_thresholds(kb, q, distance, key, found):
    store(kb, [(key, "fix", at_distance(q, distance))])
    hit = search(kb)
    assert (hit is not None) == found
    if found:
        assert hit[0] == "vector" and abs(float(hit[1]) - distance) < 0.002 and hit[2] == key


def test_calibrated_thresholds_of_the_test_model(kb, q):
    """The file make model puts beside the test model decides, without
    any override; each case in a fresh knowledge base."""
    cases = boundary_cases(calibrated())
    assert len(cases) >= 4
    for n, (distance, key, found) in enumerate(cases):
        sqlite(kb, "DELETE FROM vec_error_kb", "DELETE FROM error_kb")
        store(kb, [(key, "fix", at_distance(q, distance, seed=n + 1))])
        hit = search(kb, env={})
        assert (hit is not None) == found, (distance, key)


def test_rows_without_resolution_are_skipped(kb, q):
    store(kb, [
        ("nearest but unresolved", None, at_distance(q, 0.2, seed=1)),
        ("second, resolved", "fix", at_distance(q, 0.5, seed=2)),
    ])
    assert search(kb)[2] == "second, resolved"


def test_only_the_five_nearest_are_considered(kb, q):
    store(kb, [(f"unresolved {n}", None, at_distance(q, 0.1 * n, seed=n)) for n in range(1, 6)]
          + [("sixth, resolved", "fix", at_distance(q, 0.6, seed=6))])
    assert search(kb) is None


def test_the_threshold_applies_to_the_nearest_resolved_row(kb, q):
    """A farther row sharing keywords does not rescue a nearer one that fails."""
    store(kb, [
        (NO_KEYWORD, "fix", at_distance(q, 0.80, seed=1)),
        (SHARES_KEYWORD, "fix", at_distance(q, 0.84, seed=2)),
    ])
    assert search(kb) is None


def test_text_stages_win_before_any_vector(kb, q):
    store(kb, [(QUERY, "exact fix", at_distance(q, 0.9)), ("near", "fix", at_distance(q, 0.1, seed=2))])
    assert search(kb)[0] == "exact"
