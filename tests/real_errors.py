"""Real error messages, made by running real tools on broken inputs.

Each problem is a kind of mistake with one fix. It has a `stored` error (what
the knowledge base learned from) and `queries`: the same mistake made again
elsewhere, by another tool or with other names, worded differently. Errors
of kinds the knowledge base never saw are the `unrelated` queries; the
right answer for them is no match.

The error text is the tool's key line, the one an agent reads (node prints
source excerpts before it, Python a traceback). Run as a script, it prints
the corpus as JSON.
"""
import json
import os
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TSC = ROOT / ".cache" / "npm" / "node_modules" / ".bin" / "tsc"

MARKERS = ("error", "Error", "fatal", "not found", "No such file", "panicked", "denied", "Missing script")


def key_line(output):
    lines = [l.strip() for l in output.splitlines() if l.strip()]
    if any(l.startswith("Traceback (most recent call last)") for l in lines):
        return lines[-1]  # Python: the exception closes the traceback
    for i, line in enumerate(lines):
        if "panicked at" in line and i + 1 < len(lines):
            return f"{line} {lines[i + 1]}"  # Rust puts the message on the next line
        if any(m in line for m in MARKERS) and not line.startswith(("at ", "File ", "Traceback", "node:", "Node.js")):
            return line
    return lines[-1] if lines else ""


def run(cmd, cwd, files=None, stdin=None):
    for name, text in (files or {}).items():
        path = Path(cwd) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {**os.environ, "NO_COLOR": "1", "LANG": "C", "RUST_BACKTRACE": "0"}
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, input=stdin, env=env, timeout=120,
                          shell=isinstance(cmd, str))
    assert proc.returncode != 0, f"expected {cmd} to fail"
    return key_line(proc.stderr + "\n" + proc.stdout)


def node(code, cwd):
    return run(["node", "-e", code], cwd)


def python(code, cwd):
    return run(["python3", "-c", code], cwd)


def rustc(code, cwd):
    return run(["rustc", "--edition", "2021", "-o", "prog", "main.rs"], cwd, {"main.rs": code})


def rust_run(code, cwd):
    (Path(cwd) / "main.rs").write_text(code)
    subprocess.run(["rustc", "-o", "prog", "main.rs"], cwd=cwd, check=True, capture_output=True)
    return run(["./prog"], cwd)


def gcc(code, cwd):
    return run(["gcc", "-c", "main.c", "-o", "main.o"], cwd, {"main.c": code})


def tsc(code, cwd):
    return run([str(TSC), "--noEmit", "--strict", "main.ts"], cwd, {"main.ts": code})


def git_checkout_missing_branch(cwd):
    repo = Path(cwd) / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return run(["git", "checkout", "no-such-branch"], repo)


def problems(cwd):
    """(name, fix, stored error, [query errors]) for every problem."""
    has_tsc = TSC.exists()
    out = [
        ("missing module", "install the missing package (npm install / pip install)",
         node("require('left-pad-extra')", cwd),
         [python("import leftpad_extra", cwd),
          run(["node", "--input-type=module", "-e", "import x from 'chalk-extra'"], cwd)]
         + ([tsc("import { x } from 'date-utils-extra';\nconsole.log(x);\n", cwd)] if has_tsc else [])),
        ("undefined name", "define or import the name before using it",
         python("print(user_count)", cwd),
         [node("console.log(userCount)", cwd),
          rustc("fn main() { println!(\"{}\", total_items); }", cwd),
          gcc("int main(void) { return item_total; }", cwd)]
         + ([tsc("console.log(itemTotal);\n", cwd)] if has_tsc else [])),
        ("missing file", "create the file or fix its path",
         python("open('settings.yaml')", cwd),
         [node("require('fs').readFileSync('config.json')", cwd),
          run("cat notes.txt", cwd)]),
        ("not a git repository", "run git inside the repository (or git init)",
         run(["git", "status"], cwd),
         [run(["git", "log", "--oneline"], cwd)]),
        ("command not found", "install the command or fix its name",
         run(["bash", "-c", "yarnx install"], cwd),
         [run(["bash", "-c", "pnpmx build"], cwd)]),
        ("no such table", "create the table (run the migration) first",
         run(["sqlite3", ":memory:", "SELECT * FROM users"], cwd),
         [python("import sqlite3; sqlite3.connect(':memory:').execute('select * from orders')", cwd)]),
        ("invalid JSON", "fix the JSON syntax",
         python("import json; json.loads('{name: 1}')", cwd),
         [node("JSON.parse('{name: 1}')", cwd)]),
        ("division by zero", "guard the divisor",
         python("print(10 / 0)", cwd),
         [rust_run("fn main() { let d = std::env::args().count() - 1; println!(\"{}\", 10 / d); }", cwd)]),
        ("missing npm script", "add the script to package.json or run an existing one",
         run(["npm", "run", "build"], cwd, {"package.json": '{"name": "app", "version": "1.0.0"}'}),
         [run(["npm", "run", "lint"], cwd)]),
    ]
    return out


def unrelated(cwd):
    """Errors of kinds no problem above covers."""
    errors = [
        python("import sys; sys.setrecursionlimit(50)\ndef f(): f()\nf()", cwd),
        python("b'\\xff'.decode('utf-8')", cwd),
        python("assert 1 == 2, 'totals differ'", cwd),
        python("int('twelve')", cwd),
        node("null.length", cwd),
        node("new Array(-1)", cwd),
        rustc("fn main() { let x: i32 = \"text\"; }", cwd),
        rustc("fn main() { let v = vec![1]; let r = &v; drop(v); println!(\"{:?}\", r); }", cwd),
        git_checkout_missing_branch(cwd),
        run(["sqlite3", ":memory:", "CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1);"], cwd),
        gcc("int main(void) { return 0 }", cwd),
        python("import json; json.dumps({1, 2})", cwd),
    ]
    return errors


def corpus():
    with tempfile.TemporaryDirectory() as cwd:
        return {"problems": problems(cwd), "unrelated": unrelated(cwd)}


if __name__ == "__main__":
    print(json.dumps(corpus(), indent=1, ensure_ascii=False))
