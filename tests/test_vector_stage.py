"""kb_search stage 3 (vector), SPEC §4: stored vectors are placed at chosen
L2 distances from the query's real embedding, on both sides of 0.76 and
0.85, with and without a keyword in common."""
import math
import struct

import pytest

from conftest import connection, insert_kb, sqlite

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
    sqlite(db, f"INSERT INTO vec_error_kb(error_kb_id, embedding) VALUES {values}")


def search(db):
    out = sqlite(db, f"SELECT stage, round(distance, 3), error_normalized FROM kb_search('{QUERY}')").stdout.strip()
    return out.split("|") if out else None


@pytest.fixture(scope="module")
def q():
    return embedding(QUERY)


@pytest.mark.parametrize(
    "distance, key, found",
    [
        (0.755, NO_KEYWORD, True),       # under 0.76: a match, keywords or not
        (0.765, NO_KEYWORD, False),      # 0.76 .. 0.85 needs a shared keyword
        (0.765, SHARES_KEYWORD, True),
        (0.845, SHARES_KEYWORD, True),
        (0.855, SHARES_KEYWORD, False),  # 0.85 and beyond: never
        (1.2, SHARES_KEYWORD, False),
    ],
)
def test_thresholds(kb, q, distance, key, found):
    store(kb, [(key, "fix", at_distance(q, distance))])
    hit = search(kb)
    assert (hit is not None) == found
    if found:
        assert hit[0] == "vector" and abs(float(hit[1]) - distance) < 0.002 and hit[2] == key


def test_rows_without_resolution_are_skipped(kb, q):
    store(kb, [
        ("nearest but unresolved", None, at_distance(q, 0.2, seed=1)),
        ("second, resolved", "fix", at_distance(q, 0.5, seed=2)),
    ])
    assert search(kb)[2] == "second, resolved"


def test_only_the_three_nearest_are_considered(kb, q):
    store(kb, [
        ("one", None, at_distance(q, 0.1, seed=1)),
        ("two", None, at_distance(q, 0.2, seed=2)),
        ("three", None, at_distance(q, 0.3, seed=3)),
        ("four, resolved", "fix", at_distance(q, 0.4, seed=4)),
    ])
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
