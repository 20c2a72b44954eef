"""docs/reference.toml: every example runs in the sqlite3 shell with the
built extension and gives the result written beside it; every function
the extension registers has an entry; the README table and
docs/REFERENCE.md are what scripts/reference.py makes of it."""
import os
import subprocess
import sys
import tomllib

import pytest

from conftest import DIST, ROOT, SQL

FUNCTIONS = tomllib.loads((ROOT / "docs" / "reference.toml").read_text())["function"]
EXAMPLES = [(f["name"], i, example) for f in FUNCTIONS for i, example in enumerate(f["examples"])]
# the embedding functions' examples run the model (make model)
NEEDS_MODEL = ("embed(", "embed_model(", "embed_batch(")


def shell(script):
    # the examples speak English, whatever the locale
    env = {**os.environ, "ERRKB_LANGUAGE": "en"}
    proc = subprocess.run(["sqlite3", ":memory:"], input=script, capture_output=True, text=True, timeout=60, env=env)
    assert proc.stderr == "", proc.stderr
    return proc.stdout


@pytest.mark.parametrize("name, i, example", [
    pytest.param(name, i, example, id=f"{name}-{i}",
                 marks=[pytest.mark.model] if any(f in example["sql"] for f in NEEDS_MODEL) else [])
    for name, i, example in EXAMPLES])
def test_the_example_gives_its_result(name, i, example):
    setup = "".join(f"{statement};\n" for statement in example.get("setup", []))
    script = (f".load {DIST / 'errkb'}\n.output /dev/null\n.read {SQL / 'schema.sql'}\n.output stdout\n"
              f"{setup}{example['sql']};\n")
    assert shell(script).rstrip("\n") == example["result"]


def test_every_function_of_the_extension_has_an_entry():
    listed = "SELECT DISTINCT name FROM pragma_function_list UNION SELECT name FROM pragma_module_list"
    bare = set(shell(f"{listed};\n").split())
    loaded = set(shell(f".load {DIST / 'errkb'}\n{listed};\n").split())
    ours = {name for name in loaded - bare if not name.startswith("vec")}
    assert ours == {f["name"] for f in FUNCTIONS}


def test_the_docs_are_generated_from_it():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "reference.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
