"""kb_search stages 1 (exact) and 2 (prefix), with fixtures on both
sides of every boundary, recording, and the original system's scenarios."""
import json
import re

import pytest

from conftest import SQL, connection, insert_kb, runner, sqlite, sqlite_value

P30 = "TypeError: Cannot read propert"  # exactly 30 characters
assert len(P30) == 30


def search(db, query):
    """kb_search's row for `query` as a dict, or None."""
    literal = "'" + query.replace("'", "''") + "'"
    out = sqlite(db, "SELECT json_object('id', id, 'stage', stage, 'distance', distance, 'key', error_normalized, "
                     f"'use_count', use_count) FROM kb_search({literal})").stdout
    return json.loads(out) if out.strip() else None


def test_exact_match(kb):
    insert_kb(kb, [{"error_normalized": "Cannot find module <STR>", "resolution": "npm install 실행", "use_count": 1}])
    hit = search(kb, "Cannot find module <STR>")
    assert hit == {"id": 1, "stage": "exact", "distance": None, "key": "Cannot find module <STR>", "use_count": 1}


def test_search_is_read_only(kb):
    insert_kb(kb, [{"error_normalized": "Cannot find module <STR>", "resolution": "x", "use_count": 1}])
    search(kb, "Cannot find module <STR>")
    assert sqlite_value(kb, "SELECT use_count || '|' || ifnull(last_used, 'never') FROM error_kb") == "1|never"


def test_prefix_match_with_ratio_0_8(kb):
    stored = P30 + "x" * 70  # 100 characters
    insert_kb(kb, [{"error_normalized": stored, "resolution": "fix"}])
    hit = search(kb, P30 + "y" * 50)  # 80 characters: ratio 0.8
    assert hit["stage"] == "prefix" and hit["key"] == stored


def test_prefix_with_ratio_0_5_falls_through(kb):
    insert_kb(kb, [{"error_normalized": P30 + "x" * 70, "resolution": "fix"}])
    assert search(kb, P30 + "y" * 20) is None  # 50 / 100


@pytest.mark.parametrize("query_len, found", [(70, True), (69, False)])
def test_length_ratio_boundary_at_0_7(kb, query_len, found):
    insert_kb(kb, [{"error_normalized": P30 + "x" * 70, "resolution": "fix"}])
    hit = search(kb, P30 + "y" * (query_len - 30))
    assert (hit is not None) == found


def test_ratio_filters_candidates_before_the_best_is_taken(kb):
    """The most used prefix row fails the ratio; a less used one passes."""
    insert_kb(kb, [
        {"error_normalized": P30 + "x" * 170, "resolution": "popular but long", "use_count": 50},
        {"error_normalized": P30 + "x" * 20, "resolution": "fits", "use_count": 1},
    ])
    hit = search(kb, P30 + "y" * 20)
    assert hit["key"] == P30 + "x" * 20


@pytest.mark.parametrize(
    "stored, query, found",
    [
        ("Cannot find mod", "Cannot find mo", True),          # query shorter than 30: whole query is the prefix
        ("Cannot find mod", "Cannot find mx", False),
        ("CANNOT FIND MODULE <STR> here", "cannot find module <STR> her", True),   # ASCII case folds, as LIKE
        ("ÉCHEC du module <STR> quelque part", "échec du module <STR> quelque par", False),  # non-ASCII does not
        ("100% of tests failed in a run", "100% of tests failed in a ru", True),
        ("100% of tests failed in a run, all of them", "100% of tests failed in a run, all of the", True),
        ("100X of tests failed in a run, all of them", "100% of tests failed in a run, all of the", False),
        ("😀 emoji count as one character each in the prefix", "😀 emoji count as one character each in the prefiks", True),
        ("100X of tests failed in a run", "100% of tests failed in a ru", False),  # % is a literal
        ("a_b of the thing went wrong", "a_b of the thing went wron", True),
        ("aXb of the thing went wrong", "a_b of the thing went wron", False),     # _ is a literal
    ],
)
def test_prefix_matching_semantics(kb, stored, query, found):
    insert_kb(kb, [{"error_normalized": stored, "resolution": "fix"}])
    hit = search(kb, query)
    assert (hit is not None and hit["stage"] == "prefix") == found


def test_rows_without_resolution_are_never_returned(kb):
    insert_kb(kb, [
        {"error_normalized": "Cannot find module <STR>", "resolution": None, "use_count": 9},
        {"error_normalized": P30 + "x" * 10, "resolution": None, "use_count": 9},
    ])
    assert search(kb, "Cannot find module <STR>") is None
    assert search(kb, P30 + "y" * 10) is None
    insert_kb(kb, [{"error_normalized": P30 + "z" * 10, "resolution": "fix", "use_count": 0}])
    assert search(kb, P30 + "y" * 10)["key"] == P30 + "z" * 10


def test_exact_beats_prefix_even_when_less_used(kb):
    insert_kb(kb, [
        {"error_normalized": P30 + "a" * 10, "resolution": "prefix one", "use_count": 99},
        {"error_normalized": P30 + "b" * 10, "resolution": "exact one", "use_count": 0},
    ])
    assert search(kb, P30 + "b" * 10)["stage"] == "exact"


def test_prefix_order_is_use_count_then_newest(kb):
    insert_kb(kb, [
        {"error_normalized": P30 + "a", "resolution": "r", "use_count": 2, "ts": "2026-03-01T00:00:00.000Z"},
        {"error_normalized": P30 + "b", "resolution": "r", "use_count": 5, "ts": "2026-01-01T00:00:00.000Z"},
        {"error_normalized": P30 + "c", "resolution": "r", "use_count": 5, "ts": "2026-02-01T00:00:00.000Z"},
        {"error_normalized": P30 + "d", "resolution": "r", "use_count": 4, "ts": "2026-12-01T00:00:00.000Z"},
    ])
    assert search(kb, P30 + "z")["key"] == P30 + "c"


def test_missing_database_gives_no_match(tmp_path):
    proc = runner("search", "Cannot find module 'x'", env={"ERRKB_DB": str(tmp_path / "absent.db")})
    assert proc.returncode == 1 and proc.stdout == ""
    assert not (tmp_path / "absent.db").exists()


def plan(db, sql_file, params):
    """The steps of a stage query's plan, as the sqlite3 shell with the
    extension plans it (the queries use its functions and fix_standing)."""
    sql = (SQL / "search" / sql_file).read_text()
    setting = [f".parameter set ?{i} {json.dumps(p) if isinstance(p, str) else p}" for i, p in enumerate(params, 1)]
    out = sqlite(db, *setting, "EXPLAIN QUERY PLAN " + sql).stdout
    return [line.lstrip("|`- ").strip() for line in out.splitlines()[1:] if line.strip()]


def test_stage_queries_are_index_searches_not_scans(kb):
    insert_kb(kb, [{"error_normalized": f"error number {i:06d} in a crowded family of errors", "resolution": "r"}
                   for i in range(2000)])
    sqlite(kb, "INSERT INTO error_kb_signatures SELECT id, error_normalized FROM error_kb WHERE id % 2 = 0")
    sqlite(kb, "ANALYZE")
    exact = plan(kb, "exact.sql", ["x", "x", "y"])
    prefix = plan(kb, "prefix.sql", ["x" * 30, "x" * 30 + "\xff", "x" * 40, 0.7, "x" * 30, "x" * 30 + "\xff", "x" * 40])
    candidates = plan(kb, "candidate_errors.sql", ["[1, 2]"])
    tellable = plan(kb, "tellable.sql", ["[1, 2]", "github.com/acme/shop"])
    told = plan(kb, "told.sql", ["s", "a"])
    applied = plan(kb, "applied.sql", ["s"])
    standing = plan(kb, "fix_standing.sql", [1])
    assert "SEARCH error_kb_signatures USING COVERING INDEX idx_error_kb_signature (signature=?)" in exact
    assert "SEARCH kb USING COVERING INDEX idx_error_kb_error (error_normalized=?)" in exact
    assert "SEARCH error_kb_signatures USING COVERING INDEX idx_error_kb_signature (signature>? AND signature<?)" in prefix
    assert "SEARCH kb USING INDEX idx_error_kb_prefix (<expr>>? AND <expr><?)" in prefix
    assert "SEARCH e USING INDEX idx_events_session_advice (session_id=?)" in told
    assert "SEARCH e USING INDEX idx_events_session_errors (session_id=?)" in applied
    steps = exact + prefix + candidates + tellable + told + applied + standing
    # (a "SCAN (subquery-N)" reads a subquery's few rows, not a table, as
    # does a json_each of the arguments; "SCAN s VIRTUAL TABLE INDEX n" with
    # n > 0 is a table function (fix_standing, tellable) called with its
    # arguments)
    scans = [step for step in steps if step.startswith("SCAN") and not step.startswith("SCAN (subquery")
             and not re.search(r"VIRTUAL TABLE INDEX [1-9]", step) and "json_each" not in step
             # (tellable's co-routine of the errors' fixes)
             and step != "SCAN fix"]
    assert not scans, steps
    # a crowded prefix is read in the index's order and stops early: no sort
    assert not [step for step in prefix if "TEMP B-TREE" in step], prefix


def test_record_new_error(tmp_path):
    db = tmp_path / "new.db"
    proc = runner("--db", str(db), "record", "--error", "Module not found 'foo'",
                  "--resolution", json.dumps({"resolvedBy": "Edit", "toolSequence": ["Read", "Edit"]}),
                  "--resolved-by", "Edit", "--tool-sequence", "Read,Edit", check=True)
    assert proc.stdout == "1|Module not found <STR>|1\n"
    row = sqlite_value(db, "SELECT error_raw || '|' || resolved_by || '|' || tool_sequence || '|' || use_count FROM error_kb")
    assert row == 'Module not found \'foo\'|Edit|["Read","Edit"]|1'
    assert sqlite_value(db, "SELECT count(*) FROM vec_error_kb") == "0"  # no embedding when recording


def test_record_existing_error_upserts(kb):
    insert_kb(kb, [{"error_normalized": "Module not found <STR>", "resolution": "old", "resolved_by": "Bash",
                    "tool_sequence": "[]", "use_count": 3, "ts": "2020-01-01T00:00:00.000Z"}])
    runner("--db", str(kb), "record", "--error", "Module not found 'bar'", "--resolution", "new",
           "--resolved-by", "Edit", "--tool-sequence", "Read,Edit", check=True)
    row = sqlite_value(kb, "SELECT count(*) || '|' || resolution || '|' || resolved_by || '|' || tool_sequence "
                           "|| '|' || use_count || '|' || (ts > '2020') || '|' || error_raw FROM error_kb")
    assert row == "1|new|Edit|[\"Read\",\"Edit\"]|4|1|Module not found 'bar'"


def test_record_creates_the_database(tmp_path):
    db = tmp_path / "deep" / "er" / "kb.db"
    runner("--db", str(db), "record", "--error", "boom 42", "--resolution", "fix", check=True)
    assert sqlite_value(db, "SELECT error_normalized FROM error_kb") == "boom <N>"


def test_null_key_is_rejected(kb):
    proc = sqlite(kb, "INSERT INTO error_kb (ts, error_normalized) VALUES ('2026-01-01', NULL)", check=False)
    assert proc.returncode == 19  # SQLITE_CONSTRAINT
    assert "NOT NULL constraint failed: error_kb.error_normalized" in proc.stderr


def test_kb_search_gives_the_error_row_and_its_fixs_own_columns(kb):
    """kb_search's first nine columns are the error_kb row's, but the
    resolution, the uses and the last use, which are the fix's (its
    `fixes` row and counts); then the stage's own."""
    sqlite(kb,
           "INSERT INTO error_kb (id, ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, "
           "use_count, last_used) VALUES (7, '2026-01-02', 'Cannot find module <STR>', 'Cannot find module ''x''', "
           "'old text', 'Bash', '[\"Bash\"]', 40, '2026-01-03')",
           "INSERT INTO error_kb_signatures VALUES (7, 'Cannot find module <STR>')",
           "INSERT INTO fixes (id, uid, error_kb_id, resolution, fix_key, ts, last_used) "
           "VALUES (3, 'u3', 7, '{\"commands\":[\"npm i x\"]}', 'k3', '2026-01-02', '2026-02-01')",
           "INSERT INTO fix_counts (fix_id, replica, learned, advised) VALUES (3, '', 2, 3)")
    columns = sqlite_value(kb, "SELECT group_concat(name, ',') FROM pragma_table_info('kb_search')").split(",")
    assert columns[:9] == ["id", "ts", "error_normalized", "error_raw", "resolution", "resolved_by", "tool_sequence",
                           "use_count", "last_used"]
    assert columns[9:] == ["stage", "distance", "fix_id", "headline", "other_fixes", "fix_uid", "origin", "other_fix",
                           "other_origin", "other_uid", "elsewhere"]
    row = sqlite(kb, "SELECT id, ts, error_normalized, error_raw, resolution, resolved_by, tool_sequence, use_count, "
                     "last_used, stage, fix_id, fix_uid, origin FROM kb_search('Cannot find module ''y''')").stdout
    assert row.strip() == ("7|2026-01-02|Cannot find module <STR>|Cannot find module 'x'|"
                           '{"commands":["npm i x"]}|Bash|["Bash"]|5|2026-02-01|exact|3|u3|local')
    # an older writer's row is its own fix, with its own uses and last use
    sqlite(kb, "DELETE FROM fixes", "DELETE FROM fix_counts")
    row = sqlite(kb, "SELECT resolution, use_count, last_used, fix_id IS NULL, fix_uid "
                     "FROM kb_search('Cannot find module ''y''')").stdout
    assert row.strip() == "old text|40|2026-01-03|1|kb:7"


def test_a_signature_is_found_without_a_label_in_front(kb):
    """A loop's `echo "PR #$n: "` or a tool's own context before the message
    another run printed alone: the message after the label is looked up
    too, when it is a sentence (not a word every program prints)."""
    remotes = ("none of the git remotes configured for this repository point to a known GitHub host. "
               "To tell gh about a new GitHub host, please use `gh auth login`")
    insert_kb(kb, [{"error_normalized": "remotes", "resolution": "gh pr view -R owner/repo"},
                   {"error_normalized": "missing", "resolution": "create the file first"}])
    sqlite(kb, "INSERT INTO error_kb_signatures VALUES "
               f"(1, error_signature('{remotes}')), (2, error_signature('No such file or directory'))")
    hit = search(kb, f"PR #533: {remotes}\nPR #546: {remotes}")
    assert (hit["id"], hit["stage"]) == (1, "exact")
    assert search(kb, f"failed to determine base repo: {remotes}")["id"] == 1
    # a label before a word-sized message is not looked past
    assert search(kb, "PR #533: No such file or directory") is None


def test_fixes_of_a_vanished_error_do_not_crowd_out_a_live_one(kb):
    """kb_search weighs at most 200 candidate fixes: those whose error is
    still there. Fixes left behind by an error deleted by hand, however
    many and however well they stand, take no place from a live one."""
    sqlite(kb,
           "INSERT INTO error_kb (id, ts, error_normalized, resolution) VALUES (1, 't', 'Cannot find module <STR>', '{}')",
           "INSERT INTO error_kb_signatures VALUES (1, 'Cannot find module <STR>'), (999, 'Cannot find module <STR>')",
           "INSERT INTO fixes (id, uid, error_kb_id, resolution, fix_key, ts) VALUES (1, 'live', 1, 'npm i x', 'k', 't')",
           "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 251) "
           "INSERT INTO fixes (id, uid, error_kb_id, resolution, fix_key, ts) "
           "SELECT i, 'gone' || i, 999, 'r' || i, 'k' || i, 't' FROM n",
           "INSERT INTO fix_counts (fix_id, replica, learned) SELECT id, '', 1 FROM fixes WHERE error_kb_id = 999")
    assert sqlite_value(kb, "SELECT fix_uid FROM kb_search('Cannot find module ''y''')") == "live"
