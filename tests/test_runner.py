"""The errkb runner: database resolution, scripts with bound parameters,
search and its exit codes."""
import json
import platform
import re
import shutil
import subprocess
import sys

import pytest

from conftest import RUNNER, insert_kb, runner, sqlite_value


def test_default_database_lives_under_home(tmp_path):
    proc = runner("init", env={"HOME": str(tmp_path)}, check=True)
    db = tmp_path / ".reflexion" / "data" / "reflexion.db"
    assert proc.stdout == f"knowledge base ready: {db}\n"
    assert sqlite_value(db, "SELECT count(*) FROM error_kb") == "0"


def test_env_and_flag_override_the_database(tmp_path):
    env_db, flag_db = tmp_path / "env.db", tmp_path / "flag.db"
    runner("init", env={"HOME": str(tmp_path), "ERRKB_DB": str(env_db)}, check=True)
    runner("--db", str(flag_db), "init", env={"HOME": str(tmp_path), "ERRKB_DB": str(env_db)}, check=True)
    assert env_db.exists() and flag_db.exists()
    assert not (tmp_path / ".reflexion" / "data").exists()


def test_stdin_is_bound_as_a_parameter_never_spliced(tmp_path, kb):
    script = tmp_path / "echo.sql"
    script.write_text("SELECT json_extract(:stdin, '$.error');\nSELECT count(*) FROM error_kb;\n")
    hostile = "x'); DROP TABLE error_kb; --"
    proc = runner("--db", str(kb), "run", str(script), stdin=json.dumps({"error": hostile}), check=True)
    assert proc.stdout == f"{hostile}\n0\n"


def test_named_parameters_from_the_command_line(tmp_path, kb):
    script = tmp_path / "params.sql"
    script.write_text("SELECT :a || '-' || $b, @missing IS NULL;")
    proc = runner("--db", str(kb), "run", str(script), "--param", "a=1", "--param", ":b=two", stdin="", check=True)
    assert proc.stdout == "1-two|1\n"


def test_scripts_with_positional_parameters_are_refused(tmp_path, kb):
    script = tmp_path / "bad.sql"
    script.write_text("SELECT ?;")
    proc = runner("--db", str(kb), "run", str(script), stdin="")
    assert proc.returncode == 2 and "named parameters" in proc.stderr


def test_search_prints_the_fix_and_exits_0(kb):
    insert_kb(kb, [{"error_normalized": "Cannot find module <STR>", "resolution": '{"resolvedBy":"x"}', "use_count": 2}])
    proc = runner("--db", str(kb), "search", "Cannot find module '/a/b.ts'", check=True)
    assert proc.stdout.startswith("match (exact): Cannot find module <STR>\n  fix: x\n")
    hit = json.loads(runner("--db", str(kb), "search", "--json", "Cannot find module 'q'", check=True).stdout)
    assert hit["stage"] == "exact" and hit["use_count"] == 2 and hit["distance"] is None


def test_search_miss_exits_1(kb):
    proc = runner("--db", str(kb), "search", "never seen")
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", "no match\n")


def test_the_runner_needs_no_extension_file(tmp_path):
    """The functions are compiled into the runner: a copy of it alone, with
    no errkb.so anywhere it looks, creates, searches and runs scripts."""
    alone = tmp_path / "bin" / "errkb"
    alone.parent.mkdir()
    shutil.copy(RUNNER, alone)
    env = {"HOME": str(tmp_path / "home")}
    db = str(tmp_path / "x.db")
    subprocess.run([alone, "--db", db, "record", "--error", "Cannot find module '/a/b.js'", "--resolution", "fix"],
                   check=True, env=env, capture_output=True)
    hit = subprocess.run([alone, "--db", db, "search", "--json", "Cannot find module '/c/d.js'"], env=env,
                         capture_output=True, text=True, check=True)
    assert json.loads(hit.stdout)["resolution"] == "fix"
    out = subprocess.run([alone, "--db", db, "run", "/dev/stdin"], input="SELECT vec_version() LIKE 'v%';",
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout == "1\n"


def test_install_names_a_missing_extension_file(tmp_path):
    proc = runner("--extension", str(tmp_path / "nope.so"), "install", env={"HOME": str(tmp_path)})
    assert proc.returncode == 2
    assert "no extension at" in proc.stderr and "make" in proc.stderr


@pytest.mark.model
def test_runner_found_on_path_finds_the_model_beside_itself(tmp_path):
    """Invoked by a bare name, the runner still knows its own folder, where
    `make` puts the model and ONNX Runtime."""
    proc = subprocess.run(["errkb", "--db", str(tmp_path / "x.db"), "run", "/dev/stdin"],
                          input="SELECT errkb_debug();", capture_output=True, text=True, check=True,
                          env={"PATH": f"{RUNNER.parent}:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert f"Model: {RUNNER.parent / 'model' / 'model.onnx'}\n" in proc.stdout


def test_run_prints_what_the_sqlite3_shell_prints(tmp_path):
    """`errkb run` and the stock shell, on the same script: integers, reals
    (the shell's 15 significant digits), text, NULL, blobs, several rows."""
    import subprocess
    script = tmp_path / "values.sql"
    script.write_text(
        "SELECT 1, 1.0, 1.0 / 7, 2.0 / 3 * 1000, 1e20, 1.5e-7, -0.0001, 123456789012345.0, 1234567890123456.0;\n"
        "SELECT 'text', NULL, 'a|b', x'6869';\n"
        "SELECT value, value * 0.1 FROM json_each('[1, 2, 3]');\n")
    shell = subprocess.run(["sqlite3", str(tmp_path / "a.db"), f".read {script}"], capture_output=True, text=True,
                           timeout=60)
    ours = runner("--db", str(tmp_path / "b.db"), "run", str(script), check=True)
    assert ours.stdout == shell.stdout and "0.142857142857143" in ours.stdout


@pytest.mark.parametrize("table, query, runner_prints", [
    # a gate: when its query gives no row the runner stops there
    ("errkb_continue", "SELECT 1 WHERE 0", ""),
    ("errkb_continue", "SELECT 1", "next\nafter\n"),
    # a condition: when its query gives no row the runner skips the next statement only
    ("errkb_if_x", "SELECT 1 WHERE 0", "after\n"),
    ("errkb_if_x", "SELECT 1", "next\nafter\n"),
])
def test_gates_and_conditions_skip_for_the_runner_only(tmp_path, table, query, runner_prints):
    """`CREATE TEMP TABLE errkb_continue AS <query>` (a gate) and
    `CREATE TEMP TABLE errkb_if_<name> AS <query>` (a condition): the
    runner asks the query and skips what it guards when it gives no row;
    the sqlite3 shell runs everything."""
    import subprocess
    script = tmp_path / "guarded.sql"
    script.write_text(f"CREATE TEMP TABLE {table} AS {query};\nSELECT 'next';\nSELECT 'after';\n")
    assert runner("--db", str(tmp_path / "a.db"), "run", str(script), check=True).stdout == runner_prints
    shell = subprocess.run(["sqlite3", ":memory:", f".read {script}"], capture_output=True, text=True, timeout=60)
    assert shell.stdout == "next\nafter\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF headers on GNU/Linux")
def test_the_runner_is_position_independent():
    """The runner parses untrusted tool output: it keeps the address space
    randomisation of a position-independent executable."""
    header = subprocess.run(["readelf", "-h", str(RUNNER)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"Type:\s+DYN ", header), header


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the runner links libgcc_eh on GNU/Linux only")
def test_the_runner_starts_without_loading_libgcc_s():
    """Every hook is a new process of the runner: its unwinder is linked in
    (libgcc_eh), so no process loads libgcc_s.so and runs its constructor,
    which queries the CPU (a trap to the hypervisor on a virtual machine).
    That panics still unwind is test_hook_inputs' panic test."""
    dynamic = subprocess.run(["readelf", "-d", str(RUNNER)], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    assert "libc.so.6" in needed and not any(n.startswith("libgcc_s") for n in needed), needed


def test_the_hubs_help_and_errors_name_the_command_as_typed():
    """errkb hub … runs the errkb-hub program; what it prints names the
    command people type, not that program."""
    assert "Usage: errkb hub [OPTIONS] <COMMAND>" in runner("hub", "--help", check=True).stdout
    wrong = runner("hub", "no-such-command")
    assert wrong.returncode == 2 and "Usage: errkb hub [OPTIONS] <COMMAND>" in wrong.stderr, wrong.stderr
    assert "errkb-hub" not in wrong.stderr
