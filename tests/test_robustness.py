"""Bad input gets a clear answer and loses nothing: the defects found by
trying errkb as a user would, each checked through the real surfaces."""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import FP32_MODEL_DIR, ROOT, RUNNER, connection, peak_rss_kib, runner, sqlite, sqlite_value


def payload(session, tool, tool_input, error=None, event="PostToolUse"):
    body = {"session_id": session, "cwd": "/work/app", "hook_event_name": event, "tool_name": tool,
            "tool_input": tool_input}
    if error is not None:
        body["error"] = error
    return json.dumps(body)


@pytest.mark.model
def test_embed_cuts_long_input_before_tokenizing(tmp_path):
    """10 MB of text: the model sees what it can use, and the process stays
    small (tokenizing the whole text first took 2.8 GB)."""
    big = tmp_path / "big.txt"
    big.write_text("Error: Cannot find module 'express' " * 300_000)  # about 10.8 MB
    code, out, err, rss = peak_rss_kib(["sqlite3", ":memory:", "-cmd", f".load {ROOT / 'dist' / 'errkb'}",
                                        f"SELECT length(embed(CAST(readfile('{big}') AS TEXT)))"])
    assert code == 0 and out.strip() == "1536", err
    assert rss < 300 * 1024, f"peak RSS {rss} KiB"


def nan_model(tmp_path):
    """The float32 test model with one weight made NaN, as broken weights are."""
    onnx = pytest.importorskip("onnx")
    numpy = pytest.importorskip("numpy")
    from onnx import numpy_helper
    model = onnx.load(str(FP32_MODEL_DIR / "model.onnx"))
    for init in model.graph.initializer:
        if init.data_type == onnx.TensorProto.FLOAT and len(init.dims) == 2:
            weights = numpy_helper.to_array(init).copy()
            weights[:] = numpy.nan
            init.CopyFrom(numpy_helper.from_array(weights, init.name))
            break
    out = tmp_path / "nan-model"
    out.mkdir()
    onnx.save(model, str(out / "model.onnx"), save_as_external_data=True, location="model.onnx.data")
    shutil.copy(FP32_MODEL_DIR / "tokenizer.json", out / "tokenizer.json")
    return out


@pytest.mark.model
def test_nan_vectors_are_an_error(tmp_path):
    broken = nan_model(tmp_path)
    proc = sqlite(":memory:", "SELECT embed('hello')", check=False, env={"ERRKB_MODEL": str(broken)})
    assert proc.returncode != 0 and "NaN" in proc.stderr and proc.stdout == ""
    # the healthy model still answers
    assert sqlite_value(":memory:", "SELECT length(embed('hello'))") == "1536"


@pytest.mark.parametrize("call", ["errkb_set_model(NULL)", "errkb_prepare_model(NULL)", "errkb_debug(NULL)",
                                  "redact_secrets(NULL)", "redact_path(NULL)", "embed(NULL)"])
def test_null_in_null_out(call):
    assert sqlite_value(":memory:", f"SELECT {call} IS NULL") == "1"


@pytest.mark.skipif(shutil.which("faketime") is None, reason="faketime is not installed (make test-deps installs it)")
@pytest.mark.parametrize("clock, stored", [("10000-01-02 00:00:00", "9999-12-31T23:59:59.999Z"),
                                           ("1970-01-01 00:00:05", "1970-01-01T00:00:0")])
def test_a_clock_out_of_range_keeps_the_event_and_doctor_says_so(tmp_path, clock, stored):
    env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    proc = subprocess.run(["faketime", clock, str(RUNNER), "hook", "PostToolUseFailure"],
                          input=payload("s", "Bash", {"command": "make"}, "boom", "PostToolUseFailure"),
                          capture_output=True, text=True, env=env)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    with connection(tmp_path / ".reflexion" / "data" / "reflexion.db") as conn:
        [(ts,)] = conn.execute("SELECT ts FROM events WHERE type = 'tool_error'").fetchall()
    assert ts.startswith(stored)  # faketime's clock runs on from the time given
    doctor = subprocess.run(["faketime", clock, str(RUNNER), "doctor"], capture_output=True, text=True, env=env)
    assert doctor.returncode == 1 and doctor.stderr == ""
    assert "FAIL clock         the system clock says " in doctor.stdout
    assert "remedy: set the system clock" in doctor.stdout


def test_advice_given_is_not_a_step_of_the_next_fix(tmp_path):
    env = {"HOME": str(tmp_path)}
    error = "ModuleNotFoundError: No module named 'yaml'"
    hook = lambda event, body: runner("hook", event, stdin=body, env=env)  # noqa: E731
    hook("PostToolUseFailure", payload("one", "Bash", {"command": "python3 app.py"}, error, "PostToolUseFailure"))
    hook("PostToolUse", payload("one", "Bash", {"command": "pip install pyyaml"}))
    hook("PostToolUse", payload("one", "Bash", {"command": "python3 app.py"}))
    # session two: advice is given (an advice event), then an edit and the retry
    told = hook("PostToolUseFailure", payload("two", "Bash", {"command": "python3 app.py"}, error + " ",
                                              "PostToolUseFailure"))
    assert "[Reflexion 에러 KB]" in told.stdout
    hook("PostToolUse", payload("two", "Edit", {"file_path": "/work/app/app.py"}))
    hook("PostToolUse", payload("two", "Bash", {"command": "python3 app.py"}))
    with connection(tmp_path / ".reflexion" / "data" / "reflexion.db") as conn:
        kinds = [k for (k,) in conn.execute("SELECT type FROM events WHERE session_id = 'two' ORDER BY id")]
        (sequence,) = conn.execute("SELECT tool_sequence FROM error_kb").fetchone()
    assert "advice" in kinds
    assert json.loads(sequence) == ["Edit", "Bash"]


def test_doctor_names_a_damaged_database_and_what_to_do(tmp_path):
    data = tmp_path / ".reflexion" / "data"
    data.mkdir(parents=True)
    (data / "reflexion.db").write_bytes(b"this is not a database, it was overwritten" * 100)
    env = {"HOME": str(tmp_path)}
    # hooks fail (logged), and doctor says why and what to do
    runner("hook", "PostToolUse", stdin=payload("s", "Bash", {"command": "ls"}), env=env)
    out = runner("doctor", env=env)
    assert out.returncode == 1
    assert re.search(r"FAIL database .*reflexion\.db: .*not a database", out.stdout)
    assert "remedy: move it aside and let the next hook start a new one, keeping the old file: mv " in out.stdout
    assert re.search(r"FAIL hook failures 1 in the last 7 days \(1 × damaged database\)", out.stdout)
    # following the remedy works: the old file is kept, hooks work again
    db = data / "reflexion.db"
    db.rename(data / "reflexion.db.broken")
    assert runner("hook", "PostToolUse", stdin=payload("s", "Bash", {"command": "ls"}), env=env).returncode == 0
    assert (data / "reflexion.db.broken").exists()
    assert "ok   database" in runner("doctor", env=env).stdout


def test_doctor_counts_recent_storage_failures(tmp_path):
    logs = tmp_path / ".reflexion" / "logs"
    logs.mkdir(parents=True)
    now = subprocess.run(["date", "-u", "+%Y-%m-%dT%H:%M:%SZ"], capture_output=True, text=True).stdout.strip()
    lines = [f"{now} PostToolUse: PostToolUse.sql on /x/reflexion.db: disk I/O error: Error code 10" for _ in range(15)]
    lines += ["2020-01-01T00:00:00Z PostToolUse: disk I/O error (long ago)",
              f"{now} PostToolUse: warning: payload is not JSON (8 bytes)"]
    (logs / "hooks.log").write_text("\n".join(lines) + "\n")
    out = runner("doctor", env={"HOME": str(tmp_path)}).stdout
    assert "FAIL hook failures 15 in the last 7 days (15 × disk I/O error)" in out
    assert "remedy: disk I/O error: if the database line above is FAIL" in out


def test_doctor_says_how_to_get_a_missing_model(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    runner("install", env={"HOME": str(home)}, check=True)
    # the installed runner, away from dist/ (where the test model lives)
    proc = subprocess.run([str(home / ".reflexion" / "bin" / "errkb"), "doctor"], capture_output=True, text=True,
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    if "FAIL model" in proc.stdout:
        assert "remedy: errkb model download (online, once)" in proc.stdout
    else:
        assert "ok   model" in proc.stdout
