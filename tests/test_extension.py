"""The SQL surface of the extension, through the stock sqlite3 shell."""
import json
import re

import pytest

from conftest import EXTENSION, ROOT, SQL, connection, runner, sqlite, sqlite_value

ERRKB_FUNCTIONS = {
    "embed/1", "errkb_set_model/1", "errkb_prepare_model/1",
    "errkb_debug/0", "errkb_debug/1", "errkb_version/0", "errkb_last_search_error/0",
    "keyword_overlap/2", "length_ratio/2", "normalize_error/1", "path_basename/1", "path_names/1", "project_identity/1", "project_relative/2", "redact_path/1", "redact_secrets/1", "resolution_text/1",
    "error_signature/1", "error_headline/1", "error_excerpt/1", "error_codes/1", "translate_messages/1", "command_subject/1", "fix_key/1", "edit_hunk/2",
    "redact_private/1", "redact_user_names/1", "failure_kind/1", "fix_uid/3", "error_identified/1",
    "render_advice/2", "file_history_status/4",
    "kb_file_names/2", "embed_model/0", "utc_now/0",
}
SQLITE_VEC_FUNCTIONS = {
    "vec_add/2", "vec_bit/1", "vec_debug/0", "vec_distance_cosine/2", "vec_distance_hamming/2",
    "vec_distance_l1/2", "vec_distance_l2/2", "vec_f32/1", "vec_int8/1", "vec_length/1",
    "vec_normalize/1", "vec_quantize_binary/1", "vec_quantize_int8/2", "vec_slice/3", "vec_sub/2",
    "vec_to_json/1", "vec_type/1", "vec_version/0",
}


def listing(query, load):
    return set(sqlite(":memory:", query, load=load).stdout.split())


def test_load_adds_exactly_these_functions():
    query = "SELECT DISTINCT name || '/' || narg FROM pragma_function_list"
    added = listing(query, load=True) - listing(query, load=False)
    assert added == ERRKB_FUNCTIONS | SQLITE_VEC_FUNCTIONS


def test_load_adds_exactly_these_modules():
    query = "SELECT name FROM pragma_module_list"
    added = listing(query, load=True) - listing(query, load=False)
    assert added == {"kb_search", "kb_resolves", "fix_standing", "tellable", "embed_batch", "kb_learn", "vec0", "vec_each"}


def test_kb_learn_learns_each_row_inserted_all_or_nothing(tmp_path):
    """kb_learn, the table every writer of fixes inserts into: each row
    runs the UPSERT and keeps the signature and the fix; a statement whose
    row fails learns nothing, and says why; it holds no rows of its own."""
    db = tmp_path / "kb.db"
    runner("--db", str(db), "init", check=True)
    learn = ("INSERT INTO kb_learn (ts, error_raw, resolution) VALUES "
             "('2026-01-01T00:00:00.000Z', 'ModuleNotFoundError: No module named ''yaml''', "
             "'{\"resolvedBy\":\"manual\",\"command\":\"pip install pyyaml\"}')")
    sqlite(db, learn, learn.replace("pyyaml", "PyYAML"))
    assert sqlite(db, "SELECT error_normalized, use_count FROM error_kb").stdout == (
        "ModuleNotFoundError: No module named <STR>|2\n")
    assert sqlite(db, "SELECT f.error_headline, count(*), sum(c.learned) FROM fixes AS f "
                      "JOIN fix_counts AS c ON c.fix_id = f.id").stdout == (
        "ModuleNotFoundError: No module named 'yaml'|2|2\n")
    assert sqlite(db, "SELECT signature FROM error_kb_signatures").stdout == (
        "ModuleNotFoundError: No module named <STR>\n")
    # the second row has no time: the whole statement learns nothing
    failed = sqlite(db, "INSERT INTO kb_learn (ts, error_raw, resolution) VALUES "
                        "('2026-01-02T00:00:00.000Z', 'TypeError: x is undefined', '{}'), "
                        "(NULL, 'RangeError: y', '{}')", check=False)
    assert failed.returncode != 0 and "kb_learn: NOT NULL constraint failed: error_kb.ts" in failed.stderr
    assert sqlite_value(db, "SELECT count(*) FROM error_kb") == "1"
    # nothing to read, update or delete; no rowid to give
    assert sqlite(db, "SELECT count(*) FROM kb_learn", "UPDATE kb_learn SET ts = 'x'",
                  "DELETE FROM kb_learn").stdout == "0\n"
    assert "no column named rowid" in sqlite(db, "INSERT INTO kb_learn (rowid, ts) VALUES (1, 'x')",
                                             check=False).stderr
    assert sqlite_value(db, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'kb_learn%'") == "0"


def test_kb_resolves_shows_what_a_success_teaches(tmp_path):
    """A failing `python3 app.py`, an `ls`, an install, the retry that
    works: the retry resolves the error, and the install is its fix."""
    db = tmp_path / "kb.db"
    runner("--db", str(db), "init", check=True)
    steps = [("tool_error", {"tool": "Bash", "error": "ModuleNotFoundError: No module named <STR>",
                             "subject": "python3 app.py"}),
             ("tool_use", {"tool": "Bash", "meta": {"subject": "ls", "line": "ls"}}),
             ("tool_use", {"tool": "Bash", "meta": {"subject": "pip install", "line": "pip install yaml"}}),
             ("tool_use", {"tool": "Bash", "meta": {"subject": "python3 app.py", "line": "python3 app.py"}})]
    with connection(db) as conn:
        conn.executemany("INSERT INTO events (type, ts, session_id, project, project_path, data) "
                         "VALUES (?, ?, 's', 'app', '/w/app', ?)",
                         [(kind, f"2026-01-01T00:00:0{i}.000Z", json.dumps(data)) for i, (kind, data) in enumerate(steps)])
    query = "SELECT event_id, kind, tool_sequence, commands FROM kb_resolves('s', NULL)"
    assert sqlite(db, query).stdout == '1|success_after_error|["Bash","Bash","Bash"]|["pip install yaml"]\n'
    # the session is needed; the agent may be left out (the main thread)
    assert sqlite(db, "SELECT count(*) FROM kb_resolves('s')").stdout == "1\n"
    assert sqlite(db, "SELECT count(*) FROM kb_resolves('other')").stdout == "0\n"
    assert "no query solution" in sqlite(db, "SELECT * FROM kb_resolves", check=False).stderr
    # the success named: its window ends with it, whatever another hook of
    # the session stored since (a call made together with it)
    with connection(db) as conn:
        conn.execute("INSERT INTO events (type, ts, session_id, project, project_path, data) VALUES "
                     "('tool_use', '2026-01-01T00:00:05.000Z', 's', 'app', '/w/app', ?)",
                     (json.dumps({"tool": "Bash", "meta": {"subject": "git status", "line": "git status"}}),))
    assert sqlite(db, "SELECT count(*) FROM kb_resolves('s')").stdout == "0\n"
    assert sqlite(db, "SELECT event_id, success_event_id FROM kb_resolves('s', NULL, NULL, 4)").stdout == "1|4\n"
    assert sqlite(db, "SELECT count(*) FROM kb_resolves('s', NULL, NULL, 99)").stdout == "0\n"
    assert sqlite(db, "SELECT count(*) FROM kb_resolves('s', NULL, NULL, 'x')").stdout == "0\n"
    assert sqlite(db, "SELECT count(*) FROM kb_resolves('s', NULL, NULL, NULL)").stdout == "0\n"
    # learned already: nothing more to teach
    with connection(db) as conn:
        conn.execute("INSERT INTO learned_errors (event_id, error_kb_id, ts) VALUES (1, NULL, 'now')")
    assert sqlite(db, "SELECT count(*) FROM kb_resolves('s')").stdout == "0\n"


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("normalize_error('Cannot find module ''/Users/dev/project/src/index.ts''')", "Cannot find module <STR>"),
        ("normalize_error('Error at line 42 in /src/app.js: unexpected token')", "Error at line <N> in <PATH>: unexpected token"),
        ("normalize_error('')", ""),
        ("normalize_error(NULL) IS NULL", "1"),
        ("normalize_error(12345)", "<N>"),
        ("normalize_error(1.5)", "1.5"),
        ("normalize_error(X'2f7573722f6c6962')", "<PATH>"),  # a blob holding '/usr/lib'
        ("hex(normalize_error(CAST(X'ff41' AS TEXT)))", "EFBFBD41"),  # invalid UTF-8 → U+FFFD
        ("length(normalize_error(printf('%.*c', 10000000, 'x')))", "200"),  # 10 MB
        ("normalize_error(printf('%.*c', 10000000, '/'))", "<PATH>"),
        ("keyword_overlap('Module not found', 'module NOT found: x')", "2"),
        ("keyword_overlap('a bc', 'a bc')", "0"),
        ("keyword_overlap(NULL, 'x') IS NULL", "1"),
        ("keyword_overlap(X'00ff', 'abc')", "0"),
        ("keyword_overlap(printf('%.*c', 10000000, 'x'), 'xxx')", "0"),
        ("length_ratio('abc', 'abcdef')", "0.5"),
        ("length_ratio('', '')", "1.0"),
        ("length_ratio('', 'x')", "0.0"),
        ("length_ratio('😀', 'ab')", "1.0"),  # lengths in UTF-16 units, as JavaScript
        ("length_ratio('x', NULL) IS NULL", "1"),
        ("length_ratio(1234567, 12)", "0.285714285714286"),
        ("path_basename('/work/app/')", "app"),
        ("path_basename(NULL) IS NULL", "1"),
    ],
)
def test_function_results(expr, expected):
    assert sqlite_value(":memory:", f"SELECT {expr}") == expected


def test_one_version_number_everywhere():
    """Cargo.toml holds the version; the extension and the runner say it."""
    version = re.search(r'^version = "(.+)"$', (ROOT / "Cargo.toml").read_text(), re.M).group(1)
    assert sqlite_value(":memory:", "SELECT errkb_version()") == f"v{version}"
    assert runner("--version", check=True).stdout.strip() == f"errkb {version}"


def test_debug_names_every_version():
    report = sqlite_value(":memory:", "SELECT errkb_debug()")
    lines = dict(line.split(": ", 1) for line in report.splitlines())
    assert lines["Version"] == sqlite_value(":memory:", "SELECT errkb_version()")
    assert lines["SQLite"] == sqlite_value(":memory:", "SELECT sqlite_version()")
    assert lines["sqlite-vec"] == sqlite_value(":memory:", "SELECT vec_version()")
    assert lines["Commit"]


@pytest.mark.parametrize(
    "statement, message",
    [
        ("SELECT errkb_debug('nope')", "errkb_debug(): the only argument it takes is 'panic'"),
        ("SELECT normalize_error()", "wrong number of arguments to function normalize_error()"),
        ("SELECT length_ratio('a')", "wrong number of arguments to function length_ratio()"),
    ],
)
def test_errors_say_what_is_wrong(statement, message):
    proc = sqlite(":memory:", statement, check=False)
    assert proc.returncode == 1
    assert message in proc.stderr


def test_a_panic_inside_errkb_is_a_sql_error_and_the_shell_goes_on():
    proc = sqlite(":memory:", stdin="SELECT errkb_debug('panic');\nSELECT 'still alive';\n", check=False)
    assert proc.returncode == 1  # an error, not an abort (134)
    assert "errkb_debug(): internal error (deliberate panic requested by errkb_debug('panic'))" in proc.stderr
    assert proc.stdout == "still alive\n"


@pytest.mark.parametrize(
    "query", ["NULL", "''", "X'ff00fe'", "printf('%.*c', 10000000, 'x')", "42", "'%'", "'_'"]
)
def test_kb_search_on_odd_queries_gives_no_row(kb, query):
    assert sqlite_value(kb, f"SELECT count(*) FROM kb_search({query})") == "0"


def test_kb_search_without_tables_gives_no_row():
    assert sqlite_value(":memory:", "SELECT count(*) FROM kb_search('Cannot find module <STR>')") == "0"


def test_kb_search_without_an_argument_gives_no_row(kb):
    assert sqlite_value(kb, "SELECT count(*) FROM kb_search") == "0"


def test_schema_after_a_single_load_is_complete_and_idempotent(tmp_path):
    db = tmp_path / "fresh.db"
    sqlite(db, f".read {SQL / 'schema.sql'}")
    sqlite(db, f".read {SQL / 'schema.sql'}")  # a second run changes nothing
    names = sqlite(db, "SELECT type || ' ' || name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name").stdout.split("\n")
    for expected in [
        "table events", "table error_kb", "table analysis_cache", "table vec_error_kb",
        "index idx_error_kb_error", "index idx_error_kb_prefix",
        "index idx_events_session", "index idx_events_session_errors", "index idx_events_project_errors",
    ]:
        assert expected in names
    # indexes no hook reads: each was one more page for every event stored
    for dropped in ["index idx_events_type", "index idx_events_project_type", "index idx_events_tool_use"]:
        assert dropped not in names
    assert sqlite_value(db, "PRAGMA journal_mode") == "wal"
    columns = sqlite_value(db, "SELECT group_concat(name, ',') FROM pragma_table_info('error_kb')")
    assert columns == "id,ts,error_normalized,error_raw,resolution,resolved_by,tool_sequence,use_count,last_used"


def test_vec0_knn_query(kb):
    # Five unit vectors, each leaning further from the x axis.
    values = []
    for i in range(1, 6):
        vec = [1.0, i * 0.5] + [0.0] * 382
        values.append(f"({i}, vec_normalize(vec_f32('{vec}')))")
    sqlite(kb, "INSERT INTO vec_error_kb(error_kb_id, embedding) VALUES " + ", ".join(values))
    query = "[1.0, 0.4" + ", 0.0" * 382 + "]"
    rows = sqlite(
        kb,
        f"SELECT error_kb_id, round(distance, 4) FROM vec_error_kb WHERE embedding MATCH vec_normalize(vec_f32('{query}')) AND k = 2",
    ).stdout.split()
    assert [r.split("|")[0] for r in rows] == ["1", "2"]
