"""Retrieval on real tool errors: signatures and identifiers of
each ecosystem, the identifier and value vetoes on both sides, a localized
message finding its English twin, and the quality floors of the whole
corpus (tests/fixtures/real_errors, captured by scripts/real_errors).
The full report, per kind and part, is `make eval` (docs/EVAL.md)."""
import json
import sys

import pytest

from conftest import ROOT, runner, sqlite

sys.path.insert(0, str(ROOT / "scripts"))
import eval as corpus_eval  # noqa: E402  (scripts/eval.py)

CORPUS = json.loads(corpus_eval.CORPUS.read_text())


def stored(problem):
    return next(e["error"] for e in CORPUS if e["problem"] == problem and e["role"] == "stored")


def signature(text):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write(text)
        f.flush()
        out = sqlite(":memory:", f"SELECT error_signature(CAST(readfile('{f.name}') AS TEXT)) || char(31) "
                                 f"|| error_codes(CAST(readfile('{f.name}') AS TEXT))").stdout
    sig, codes = out.strip().split("\x1f")
    return sig, {(c["kind"], c["value"]) for c in json.loads(codes)}


@pytest.mark.parametrize("problem, expected, identifiers", [
    ("py-missing-package", "ModuleNotFoundError: No module named <STR>", {("exception", "ModuleNotFoundError")}),
    ("py-file-not-found", "FileNotFoundError: [Errno <N>] No such file or directory: <STR>",
     {("exception", "FileNotFoundError"), ("errno", "ENOENT")}),
    ("node-missing-package", "Cannot find module <STR>", {("code", "MODULE_NOT_FOUND")}),
    ("node-read-undefined", "TypeError: Cannot read properties of undefined (reading <STR>)",
     {("exception", "TypeError")}),
    ("tsc-missing-module", "error TS2307: Cannot find module <STR> or its corresponding type declarations.",
     {("code", "TS2307")}),
    ("rust-use-after-move", "error[E0382]: borrow of moved value: <STR>", {("code", "E0382")}),
    ("c-missing-header", "error: <V>: No such file or directory", {("errno", "ENOENT")}),
    ("java-null-pointer", "NullPointerException: Cannot invoke <STR> because <STR> is null",
     {("exception", "NullPointerException")}),
    ("git-pathspec", "error: pathspec <STR> did not match any file(s) known to git", set()),
    ("make-no-rule", "make: No rule to make target <STR>", set()),
    ("pg-no-relation", "ERROR: relation <STR> does not exist", set()),
    ("sh-command-not-found", "command not found: <STR>", set()),
    ("npm-missing-script", "Missing script: <STR>", set()),
    ("curl-cannot-resolve", "curl: (<N>) Could not resolve host: <V>", {("code", "curl(6)"), ("program", "curl")}),
])
def test_signatures_of_each_ecosystem(problem, expected, identifiers):
    sig, ids = signature(stored(problem))
    assert sig == expected
    assert identifiers <= ids


def test_the_boilerplate_is_not_the_signature():
    for problem in ("py-env-var-missing", "node-missing-local-module", "java-number-format"):
        sig, _ = signature(stored(problem))
        assert not sig.startswith(("Traceback", "node:internal", "Exit code", "Exception in thread")), sig


@pytest.fixture
def kb(tmp_path):
    return tmp_path / "kb.db"


def record(kb, error, fix):
    runner("--db", str(kb), "record", "--error", error, "--resolution", fix, check=True)


def search(kb, error):
    proc = runner("--db", str(kb), "search", "--json", error)
    return json.loads(proc.stdout) if proc.returncode == 0 else None


def test_identifiers_of_one_kind_that_differ_veto_a_match(kb):
    record(kb, "main.ts(1,23): error TS2307: Cannot find module 'yaml-x' or its corresponding type declarations.",
           "npm install yaml-x")
    same_code = search(kb, "src/a.ts(4,9): error TS2307: Cannot find module 'axios' or its corresponding type declarations.")
    other_code = search(kb, "src/a.ts(4,9): error TS2305: Cannot find module 'axios' or its corresponding type declarations.")
    assert same_code["resolution"] == "npm install yaml-x"
    assert other_code is None
    record(kb, "Error: ENOENT: no such file or directory, open 'config.json'", "create config.json")
    assert search(kb, "Error: ENOENT: no such file or directory, open 'settings.json'")["resolution"] == "create config.json"
    assert search(kb, "Error: EACCES: permission denied, open 'settings.json'") is None


def test_the_kind_of_value_chooses_between_fixes(kb):
    """`Cannot find module 'express'` (install it) and `'./utils'` (fix the
    path) share a key: each keeps its fix, the query gets the closest."""
    loader = "\nRequire stack:\n- /w/app.js"
    record(kb, "Error: Cannot find module 'express'" + loader, "npm install express")
    record(kb, "Error: Cannot find module './utils'" + loader, "fix the relative path")
    assert search(kb, "Error: Cannot find module 'lodash'" + loader)["resolution"] == "npm install express"
    assert search(kb, "Error: Cannot find module '../lib/helpers'" + loader)["resolution"] == "fix the relative path"
    assert search(kb, "Error: Cannot find module './utils'" + loader)["other_fixes"] == 0
    record(kb, "KeyError: 'GITHUB_TOKEN'", "export GITHUB_TOKEN=...")
    assert search(kb, "KeyError: 'DATABASE_URL'")["resolution"] == "export GITHUB_TOKEN=..."
    assert search(kb, "KeyError: 'user_id'") is None


def test_a_localized_message_finds_its_english_twin(kb):
    record(kb, stored("ls-no-such-file"), "check the path")
    catalog = runner("--db", str(kb), "catalog", "--lang", "ko,de", check=True).stdout
    assert " 0 messages" not in catalog, f"no gettext catalogs on this machine: {catalog}"
    for entry in CORPUS:
        if entry["problem"] == "ls-no-such-file" and entry["lang"] in ("ko", "de"):
            hit = search(kb, entry["error"])
            assert hit and hit["resolution"] == "check the path", entry["error"]
    # And the other way round: an English message finds a fix learned from Korean output.
    korean = next(e["error"] for e in CORPUS if e["problem"] == "make-no-rule" and e["lang"] == "ko")
    record(kb, korean, "check the target's name")
    assert search(kb, stored("make-no-rule"))["resolution"] == "check the target's name"


@pytest.fixture(scope="module")
def results():
    return corpus_eval.evaluate(CORPUS, surfaces=("search",))[0]


@pytest.mark.model
@pytest.mark.parametrize("part", ["held-in", "held-out"])
def test_wrong_fixes_and_false_positives_stay_rare(results, part):
    rs = [r for r in results if r["heldout"] == (part == "held-out")]
    queries = [r for r in rs if r["role"] == "query"]
    negatives = [r for r in rs if r["role"] != "query"]
    wrong = sum(r["search"] == "wrong" for r in queries)
    false_positives = sum(r["search"] == "false_positive" for r in negatives)
    assert wrong <= 0.03 * len(queries), [r["error"][:120] for r in queries if r["search"] == "wrong"]
    assert false_positives <= 0.03 * len(negatives)
    same_message = [r for r in queries if r["kind"] in ("same_values", "other_values")]
    assert sum(r["search"] == "correct" for r in same_message) >= 0.95 * len(same_message)
