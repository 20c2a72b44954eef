"""redact_secrets() on the committed corpus of synthetic secrets and
look-alikes, through the sqlite3 shell with the built extension (the same
run `make redact-check` reports)."""
import json
import subprocess
import sys

from conftest import EXTENSION, ROOT, sqlite_value


def report():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "redact_check.py"), "--extension", str(EXTENSION),
                           "--json"], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_corpus_is_what_the_generator_writes():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "secret_corpus.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_recall_and_false_positives_meet_the_goals():
    result = report()
    everything = result["all"]
    assert everything["secrets"] >= 120 and everything["formats"] >= 40 and everything["lookalikes"] >= 60
    assert everything["recall"] >= 0.97, everything["misses"]
    assert everything["touched_share"] <= 0.02, everything["touched_cases"]


def test_null_and_clean_text_pass_through():
    assert sqlite_value(":memory:", "SELECT redact_secrets(NULL) IS NULL") == "1"
    assert sqlite_value(":memory:", "SELECT redact_secrets('npm ERR! missing script: build')") == \
        "npm ERR! missing script: build"
