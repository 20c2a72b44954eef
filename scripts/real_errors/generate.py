#!/usr/bin/env python3
"""Capture the real-error corpus: run real tools on broken inputs, keep what
Claude Code would pass to the failure hook.

    python3 scripts/real_errors/generate.py [OUT.json]   (make real-errors)

Every input is in this file. The captured outputs are committed
(tests/fixtures/real_errors/corpus.json), so tests and `make eval` do not
depend on the versions of the tools installed; rerun this script to refresh
them on another machine.

The corpus is made of *problems*: a kind of mistake with one fix. Each has
a `stored` error (what the knowledge base learned the fix from) and queries,
the same mistake met again, labelled by how they differ from the stored one:

  same_values     the same mistake, the same names (another run, another file)
  other_values    the same mistake with other paths, names or numbers
  other_tool      the same failure through another tool or tool version
  other_language  localized tool output (ko, ja, de) or another programming
                  language failing the same way
  paraphrase      the same mistake worded differently by the same tool

and *negatives*: failures the knowledge base has no fix for (some share
strong keywords with a stored problem) and non-errors (help text, success
lines); the right answer for them is no advice.

A Bash failure reaches the hook as `Exit code N` followed by what the
command printed (stdout and stderr as a terminal shows them); that is the
form captured here. Paths under the scratch directory are shown as
/home/dev/project.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "real_errors" / "corpus.json"
TSC = ROOT / ".cache" / "npm" / "node_modules" / ".bin" / "tsc"
SHOWN_ROOT = "/home/dev/project"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
PG_PORT = "5499"

# pytest from the project's virtual environment (make venv).
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
# rustc and cargo through rustup, with HOME pointing elsewhere.
CARGO_HOME = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
RUSTUP_HOME = Path(os.environ.get("RUSTUP_HOME", Path.home() / ".rustup"))
LOCALES = {"ko": "ko_KR.UTF-8", "ja": "ja_JP.UTF-8", "de": "de_DE.UTF-8"}


class Case:
    """One command run on its own files, in a fresh directory."""

    def __init__(self, tool, cmd, files=None, lang=None, user=None, setup=None, env=None, expect_fail=True):
        self.tool, self.cmd, self.files, self.lang = tool, cmd, files or {}, lang
        self.user, self.setup, self.env, self.expect_fail = user, setup, env or {}, expect_fail

    def run(self, scratch):
        work = Path(tempfile.mkdtemp(dir=scratch))
        for name, text in self.files.items():
            path = work / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        if self.user:
            shutil.chown(work, self.user)
            os.chmod(work, 0o755)
        env = {"PATH": f"{TSC.parent}:{CARGO_HOME / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": str(work),
               "CARGO_HOME": str(CARGO_HOME), "RUSTUP_HOME": str(RUSTUP_HOME), "NO_COLOR": "1",
               "TERM": "dumb", "RUST_BACKTRACE": "0", "LANG": "C.UTF-8", "PGHOST": str(scratch / "pg"),
               "PGPORT": PG_PORT, "PGUSER": "postgres", "npm_config_update_notifier": "false",
               "npm_config_fund": "false", "npm_config_audit": "false", "PYTHONDONTWRITEBYTECODE": "1",
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
               "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com",
               "CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1"}
        if self.lang:
            env["LANG"] = env["LC_ALL"] = LOCALES[self.lang]
            env["PGOPTIONS"] = f"-c lc_messages={LOCALES[self.lang]}"
        env.update(self.env)
        if self.setup:
            subprocess.run(self.setup, shell=True, cwd=work, env=env, capture_output=True, timeout=120)
        argv = ["bash", "-c", self.cmd]
        if self.user:
            argv = [shutil.which("runuser", path="/usr/sbin:/sbin:/usr/bin") or "runuser", "-u", self.user, "--"] + argv
        proc = subprocess.run(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=180)
        out = proc.stdout.decode("utf-8", "replace").replace(str(work), SHOWN_ROOT)
        out = out.replace(str(scratch), "/tmp").rstrip()
        if self.expect_fail and proc.returncode == 0:
            raise RuntimeError(f"expected a failure: {self.cmd}\n{out}")
        return f"Exit code {proc.returncode}\n{out}" if proc.returncode else out


def py(code, files=None, **kw):
    return Case("python", "python3 app.py", {"app.py": code, **(files or {})}, **kw)


def node(code, files=None, **kw):
    return Case("node", "node app.js", {"app.js": code, **(files or {})}, **kw)


def tsc(code, **kw):
    return Case("tsc", "tsc --noEmit --strict main.ts", {"main.ts": code}, **kw)


def rustc(code, **kw):
    return Case("rustc", "rustc --edition 2021 -o prog main.rs", {"main.rs": code}, **kw)


def cargo(code, **kw):
    toml = '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n'
    return Case("cargo", "cargo build --offline -q", {"Cargo.toml": toml, "src/main.rs": code}, **kw)


def rust_run(code, **kw):
    return Case("rustc", "rustc -o prog main.rs 2>/dev/null && ./prog", {"main.rs": code}, **kw)


def gcc(code, **kw):
    return Case("gcc", "gcc -o prog main.c", {"main.c": code}, **kw)


def gxx(code, **kw):
    return Case("g++", "g++ -o prog main.cpp", {"main.cpp": code}, **kw)


def javac(code, cls="Main", **kw):
    return Case("javac", f"javac {cls}.java", {f"{cls}.java": code}, **kw)


def java(code, cls="Main", **kw):
    return Case("java", f"javac {cls}.java && java {cls}", {f"{cls}.java": code}, **kw)


def sh(tool, cmd, **kw):
    return Case(tool, cmd, **kw)


def git(cmd, **kw):
    # Debian's git: it carries the translations.
    return Case("git", f"/usr/bin/git init -q . && /usr/bin/git commit -q --allow-empty -m init && {cmd}", **kw)


def psql(sql, **kw):
    return Case("psql", f"psql -v ON_ERROR_STOP=1 -X -q -c {json.dumps(sql)}", **kw)


def sqlite(sql, **kw):
    return Case("sqlite3", f"sqlite3 app.db {json.dumps(sql)}",
                setup="sqlite3 app.db 'CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE);"
                      " INSERT INTO users VALUES (1, \"a@example.com\")'", **kw)


def pytest(code, **kw):
    return Case("pytest", f"{VENV_PYTHON} -m pytest -q -p no:cacheprovider test_app.py", {"test_app.py": code},
                **kw)


def localized(make_case, *args, langs=("ko", "ja", "de"), **kw):
    return [("other_language", make_case(*args, lang=lang, **kw)) for lang in langs]


MAKEFILE_OK = "all:\n\t@echo building\n"

# ---------------------------------------------------------------- problems
# (id, fix, stored case, [(kind, case), ...])
PROBLEMS = [
    # ---- Python
    ("py-missing-package", "pip install pendulum (the module's package is not installed)",
     py("import pendulum\nprint(pendulum.now())\n"),
     [("same_values", py("import os\nimport pendulum\n\ndef today():\n    return pendulum.today()\n")),
      ("other_values", py("import requests_toolbelt\n")),
      ("other_values", Case("python", "python3 -c 'import polars as pl; print(pl.DataFrame())'")),
      ("other_tool", pytest("import pendulum\n\ndef test_load():\n    assert pendulum\n")),
      ("paraphrase", py("from pendulum import datetime\n"))]),
    ("py-env-var-missing", "export GITHUB_TOKEN=... (the environment variable is not set)",
     py("import os\ntoken = os.environ['GITHUB_TOKEN']\n"),
     [("same_values", py("import os\n\ndef client():\n    return os.environ['GITHUB_TOKEN']\n\nclient()\n")),
      ("other_values", py("import os\nurl = os.environ['DATABASE_URL']\n")),
      ("other_values", py("from os import environ\nkey = environ['OPENAI_API_KEY']\n")),
      ("other_language", node("const u = process.env.DATABASE_URL;\nif (!u) throw new Error('Missing environment variable DATABASE_URL');\n"))]),
    ("py-dict-key-missing", "use d.get('key') or check the key before reading it",
     py("user = {'name': 'a'}\nprint(user['user_id'])\n"),
     [("same_values", py("row = {}\nrow['user_id']\n")),
      ("other_values", py("config = {'a': 1}\nport = config['port']\n")),
      ("other_values", py("import json\nd = json.loads('{}')\nprint(d['items'])\n"))]),
    ("py-file-not-found", "create the file or fix the path (relative paths are resolved from the working directory)",
     py("with open('config.json') as f:\n    print(f.read())\n"),
     [("same_values", py("import json\ncfg = json.load(open('config.json'))\n")),
      ("other_values", py("import csv\nrows = list(csv.reader(open('data/input.csv')))\n")),
      ("other_values", py("from pathlib import Path\nPath('settings.yaml').read_text()\n")),
      ("other_language", node("require('fs').readFileSync('config.json', 'utf8');\n")),
      ("other_tool", sh("cat", "cat config.json")),
      ("other_tool", sh("coreutils", "head -n 3 data/input.csv"))]),
    ("py-none-subscript", "the value is None: check the call that returned it before indexing",
     py("def find(x):\n    return None\n\nprint(find(1)['id'])\n"),
     [("same_values", py("import re\nm = re.match('a', 'b')\nprint(m[0])\n")),
      ("other_values", py("data = None\nfor i in range(3):\n    data[i]\n"))]),
    ("py-none-attribute", "the value is None: check the call that returned it before using it",
     py("import re\nm = re.search(r'\\d+', 'abc')\nprint(m.group(0))\n"),
     [("same_values", py("import re\nprint(re.match('x', 'y').group(0))\n")),
      ("other_values", py("import os\nos.environ.get('HOME_DIR').split('/')\n")),
      ("other_language", node("const m = 'abc'.match(/\\d+/);\nconsole.log(m.length);\n"))]),
    ("py-indentation", "fix the indentation of the block (mixed or missing indentation)",
     py("def f():\nreturn 1\n"),
     [("same_values", py("class A:\n    def m(self):\n    pass\n")),
      ("paraphrase", py("x = 1\n    y = 2\n"))]),
    ("py-syntax-unclosed", "close the parenthesis opened on the reported line",
     py("print('a'\nx = 1\n"),
     [("other_values", py("items = [1, 2, 3\nfor i in items:\n    pass\n")),
      ("same_values", py("def f():\n    return max(1, 2\n"))]),
    ("py-zero-division", "guard the division: the divisor can be zero",
     py("def avg(xs):\n    return sum(xs) / len(xs)\n\nprint(avg([]))\n"),
     [("same_values", py("total, n = 10, 0\nprint(total / n)\n")),
      ("paraphrase", py("print(7 % 0)\n"))]),
    ("py-json-empty", "the input is not JSON (empty or HTML): check the response or file before json.loads",
     py("import json\njson.loads('')\n"),
     [("same_values", py("import json\njson.load(open('empty.json'))\n", files={"empty.json": ""})),
      ("other_values", py("import json\njson.loads('<html><body>502</body></html>')\n")),
      ("other_language", node("JSON.parse('<html>');\n"))]),
    ("py-name-undefined", "define or import the name before using it",
     py("print(undefined_helper(1))\n"),
     [("same_values", py("def main():\n    return undefined_helper()\n\nmain()\n")),
      ("other_values", py("df = pd.DataFrame()\n")),
      ("other_language", node("console.log(undefinedHelper(1));\n"))]),
    ("py-bad-int", "the text is not a number: validate or strip it before int()",
     py("int('abc')\n"),
     [("other_values", py("n = int('12px')\n")),
      ("same_values", py("import sys\nvalue = 'abc'\nprint(int(value) + 1)\n"))]),
    ("py-import-name", "the name is not in that module: check the spelling or the package version",
     py("from os import joinpath\n"),
     [("other_values", py("from json import parse\n")),
      ("same_values", py("import sys\nfrom os import joinpath\n"))]),
    ("py-connection-refused", "start the server first or fix the port",
     py("import urllib.request\nurllib.request.urlopen('http://127.0.0.1:9/')\n"),
     [("paraphrase", py("import socket\ns = socket.create_connection(('127.0.0.1', 9))\n")),
      ("other_values", py("import urllib.request\nurllib.request.urlopen('http://localhost:8765/api')\n")),
      ("other_language", node("require('http').get('http://127.0.0.1:9/');\n")),
      ("other_tool", sh("curl", "curl -sS http://127.0.0.1:9/"))]),
    ("py-address-in-use", "another process holds the port: stop it or use another port",
     py("import socket\na = socket.socket(); a.bind(('127.0.0.1', 8765)); a.listen()\n"
        "b = socket.socket(); b.bind(('127.0.0.1', 8765))\n"),
     [("other_values", py("import socket\na = socket.socket(); a.bind(('127.0.0.1', 5055)); a.listen()\n"
                          "b = socket.socket(); b.bind(('127.0.0.1', 5055))\n")),
      ("other_language", node("const net = require('net');\nnet.createServer().listen(8765, () => "
                              "net.createServer().listen(8765));\n"))]),
    ("py-permission-denied", "the file is not readable by this user: fix its permissions or read another path",
     py("open('/root/secret.txt').read()\n", user="nobody"),
     [("other_values", py("open('/root/.bashrc').read()\n", user="nobody")),
      ("other_language", node("require('fs').readFileSync('/root/.profile');\n", user="nobody")),
      ("other_tool", sh("cat", "cat /root/.bashrc", user="nobody"))]),
    ("py-recursion", "add a base case to the recursive function",
     py("def f(n):\n    return f(n + 1)\n\nf(0)\n"),
     [("other_language", node("function f(n) { return f(n + 1); }\nf(0);\n"))]),
    ("py-unicode-decode", "the file is not UTF-8: open it with the right encoding or in binary mode",
     py("open('data.bin', encoding='utf-8').read()\n", setup="printf '\\377\\376abc' > data.bin"),
     [("other_values", py("b'caf\\xe9'.decode('utf-8')\n"))]),
    ("py-wrong-arg-count", "the call passes a different number of arguments than the function takes",
     py("def add(a, b):\n    return a + b\n\nadd(1)\n"),
     [("paraphrase", py("def greet(name):\n    return name\n\ngreet('a', 'b')\n")),
      ("same_values", py("class C:\n    def add(self, a, b):\n        return a\n\nC().add(1)\n"))]),

    # ---- Node
    ("node-missing-package", "npm install express (the package is not installed)",
     node("const express = require('express');\nexpress();\n"),
     [("same_values", node("'use strict';\nconst app = require('express')();\napp.listen(3000);\n")),
      ("other_values", node("const _ = require('lodash');\n")),
      ("other_values", node("const { z } = require('zod');\n")),
      ("other_tool", Case("node", "node app.mjs", {"app.mjs": "import express from 'express';\n"})),
      ("other_tool", tsc("import express from 'express';\nexpress();\n"))]),
    ("node-missing-local-module", "fix the relative path in the require (the file does not exist there)",
     node("const utils = require('./utils');\n"),
     [("same_values", node("const { format } = require('./utils');\nformat();\n")),
      ("other_values", node("const helpers = require('../lib/helpers');\n")),
      ("other_tool", Case("node", "node app.mjs", {"app.mjs": "import { x } from './utils.js';\n"}))]),
    ("node-read-undefined", "the object is undefined: check where it comes from before reading the property",
     node("const res = {};\nres.data.map(x => x);\n"),
     [("same_values", node("function f(o) { return o.items.length; }\nf({});\n")),
      ("other_values", node("const user = undefined;\nconsole.log(user.name);\n")),
      ("other_values", node("const list = null;\nlist.forEach(x => x);\n"))]),
    ("node-not-defined", "declare or import the variable before using it",
     node("console.log(config.port);\n"),
     [("same_values", node("function start() { return config.port; }\nstart();\n")),
      ("other_values", node("fetchData();\n"))]),
    ("node-json-parse", "the text is not valid JSON: check the file or response before JSON.parse",
     node("JSON.parse('{\"a\":}');\n"),
     [("paraphrase", node("const fs = require('fs');\nJSON.parse(fs.readFileSync('package.json', 'utf8'));\n",
                           files={"package.json": "{\"name\": \"app\",}\n"})),
      ("paraphrase", node("JSON.parse('{name: 1}');\n")),
      ("other_language", py("import json\njson.loads('{\"a\":}')\n"))]),
    ("node-eaddrinuse", "another process holds the port: stop it (lsof -i :PORT) or use another port",
     node("const http = require('http');\nhttp.createServer().listen(3000, () => http.createServer().listen(3000));\n"),
     [("other_values", node("const http = require('http');\nhttp.createServer().listen(8080, () => "
                            "http.createServer().listen(8080));\n"))]),
    ("node-not-a-function", "the value is not a function: check the import (default vs named export)",
     node("const lib = { run: 1 };\nlib.run();\n"),
     [("same_values", node("const o = {};\no.start = 'x';\no.start();\n")),
      ("other_values", node("const arr = {};\narr.map(x => x);\n"))]),
    ("node-esm-import-in-cjs", "add \"type\": \"module\" to package.json or use require()",
     Case("node", "node app.cjs", {"app.cjs": "import fs from 'fs';\nconsole.log(fs);\n"}),
     [("same_values", Case("node", "node server.cjs", {"server.cjs": "const x = 1;\nimport path from 'path';\n"})),
      ("other_values", Case("node", "node app.cjs", {"app.cjs": "import { readFile } from 'node:fs/promises';\n"}))]),
    ("node-enoent-spawn", "the program is not installed or not on PATH",
     node("require('child_process').execFileSync('no-such-tool', ['--version']);\n"),
     [("other_values", node("require('child_process').execFileSync('pnpm', ['install']);\n")),
      ("other_language", py("import subprocess\nsubprocess.run(['no-such-tool', '--version'])\n")),
      ("other_tool", sh("bash", "no-such-tool --version"))]),

    # ---- TypeScript
    ("tsc-missing-module", "npm install the package and its types (@types/...)",
     tsc("import { parse } from 'yaml-parser-x';\nparse('');\n"),
     [("other_values", tsc("import axios from 'axios';\naxios.get('/');\n")),
      ("same_values", tsc("import * as lib from 'yaml-parser-x';\nconsole.log(lib);\n"))]),
    ("tsc-not-assignable", "the types differ: convert the value (Number(x)) or fix the declared type",
     tsc("const n: number = 'a';\nconsole.log(n);\n"),
     [("other_values", tsc("let flag: boolean = 1;\nconsole.log(flag);\n")),
      ("same_values", tsc("function f(): number { return 'x'; }\nf();\n")),
      ("other_values", tsc("let x: string = 'a';\nx = undefined;\n")),
      ("other_values", tsc("enum E { A }\nconst e: E = 'A';\n"))]),
    ("tsc-no-property", "the property is not declared on the type: add it to the interface or fix the name",
     tsc("const o = {};\nconsole.log(o.foo);\n"),
     [("other_values", tsc("interface User { name: string }\nconst u: User = { name: 'a' };\nconsole.log(u.email);\n")),
      ("same_values", tsc("const cfg = { port: 1 };\nconsole.log(cfg.foo);\n"))]),
    ("tsc-cannot-find-name", "declare or import the name",
     tsc("console.log(undefinedThing);\n"),
     [("other_values", tsc("const x = helper(1);\n"))]),
    ("tsc-implicit-any", "annotate the parameter's type",
     tsc("function f(x) { return x; }\nf(1);\n"),
     [("other_values", tsc("const g = function (item, index) { return item + index; };\ng(1, 2);\n"))]),
    ("tsc-argument-type", "pass a value of the parameter's type",
     tsc("function f(n: number) { return n; }\nf('1');\n"),
     [("other_values", tsc("function g(s: string) { return s; }\ng(42);\n"))]),

    # ---- Rust
    ("rust-use-after-move", "clone the value or borrow it (&v) instead of moving it",
     rustc("fn main() {\n    let v = vec![1];\n    let w = v;\n    println!(\"{:?} {:?}\", v, w);\n}\n"),
     [("other_values", rustc("fn take(s: String) {}\nfn main() {\n    let name = String::new();\n    take(name);\n"
                             "    println!(\"{}\", name);\n}\n")),
      ("other_tool", cargo("fn main() {\n    let v = vec![1];\n    let w = v;\n    println!(\"{:?} {:?}\", v, w);\n}\n"))]),
    ("rust-mismatched-types", "convert the value to the expected type",
     rustc("fn main() {\n    let x: i32 = \"a\";\n}\n"),
     [("other_values", rustc("fn f() -> u64 { 1.5 }\nfn main() { f(); }\n")),
      ("other_tool", cargo("fn main() {\n    let x: i32 = \"a\";\n}\n"))]),
    ("rust-unresolved-name", "declare the variable or import the item",
     rustc("fn main() {\n    println!(\"{}\", count);\n}\n"),
     [("other_values", rustc("fn main() {\n    let t = total + 1;\n}\n")),
      ("other_tool", cargo("fn main() {\n    println!(\"{}\", count);\n}\n"))]),
    ("rust-no-method", "the type has no such method: check the name or import the trait",
     rustc("fn main() {\n    let v = vec![1];\n    v.push_all(&[2]);\n}\n"),
     [("other_values", rustc("fn main() {\n    let s = String::new();\n    s.foo();\n}\n"))]),
    ("rust-undeclared-crate", "add the crate to Cargo.toml ([dependencies])",
     cargo("use serde_json::Value;\nfn main() {}\n"),
     [("other_values", cargo("fn main() { let r = regex::Regex::new(\"a\"); }\n")),
      ("other_tool", rustc("use serde_json::Value;\nfn main() {}\n"))]),
    ("rust-unwrap-none", "the Option is None: handle it with match / if let / ok_or",
     rust_run("fn main() {\n    let v: Vec<i32> = vec![];\n    let x = v.first().unwrap();\n    println!(\"{}\", x);\n}\n"),
     [("other_values", rust_run("fn main() {\n    let m = std::collections::HashMap::<i32, i32>::new();\n"
                                "    m.get(&1).unwrap();\n}\n"))]),
    ("rust-index-out-of-bounds", "check the index against the length",
     rust_run("fn main() {\n    let v = vec![1, 2];\n    let i = v.len() + 1;\n    println!(\"{}\", v[i]);\n}\n"),
     [("other_values", rust_run("fn main() {\n    let v: Vec<u8> = Vec::new();\n    let n = v.len();\n"
                                "    println!(\"{}\", v[n + 7]);\n}\n")),
      ("other_language", java("public class Main { public static void main(String[] a) { int[] v = new int[2];"
                              " System.out.println(v[3]); } }\n"))]),
    ("cargo-no-manifest", "run cargo inside the crate (the directory with Cargo.toml)",
     sh("cargo", "cargo build --offline"),
     [("other_values", sh("cargo", "mkdir -p sub && cd sub && cargo test --offline")),
      ("same_values", sh("cargo", "cargo run --offline"))]),

    # ---- C / C++
    ("c-undeclared", "declare the variable before using it",
     gcc("int main(void) {\n    return count;\n}\n"),
     [("other_values", gcc("int main(void) {\n    total += 1;\n    return 0;\n}\n")),
      ("other_tool", gxx("int main() {\n    return count;\n}\n"))]),
    ("c-missing-header", "install the library's -dev package or fix the include path (-I)",
     gcc("#include <gtk/gtk.h>\nint main(void) { return 0; }\n"),
     [("other_values", gcc("#include \"config.h\"\nint main(void) { return 0; }\n")),
      ("other_tool", gxx("#include <boost/optional.hpp>\nint main() { return 0; }\n"))]),
    ("c-missing-semicolon", "add the missing ';' at the end of the previous statement",
     gcc("int main(void) {\n    int x = 1\n    return x;\n}\n"),
     [("paraphrase", gcc("int f(void) { return 2 }\nint main(void) { return f(); }\n"))]),
    ("c-undefined-reference", "link the library that defines the function (-lNAME) or add its source file",
     gcc("int helper(void);\nint main(void) { return helper(); }\n"),
     [("other_values", gcc("int parse_config(const char *path);\nint main(void) { return parse_config(\"a\"); }\n")),
      ("other_tool", gxx("int helper();\nint main() { return helper(); }\n"))]),
    ("cpp-not-declared-std", "add #include <iostream> and use std::cout",
     gxx("int main() {\n    cout << 1;\n}\n"),
     [("other_values", gxx("#include <vector>\nint main() {\n    vector<int> v;\n}\n"))]),

    # ---- Java
    ("java-cannot-find-symbol", "declare or import the symbol",
     javac("public class Main {\n    public static void main(String[] a) {\n        System.out.println(count);\n    }\n}\n"),
     [("other_values", javac("public class Main {\n    public static void main(String[] a) {\n"
                             "        List<String> l = new ArrayList<>();\n    }\n}\n"))]),
    ("java-incompatible-types", "convert the value (Integer.parseInt) or change the declared type",
     javac("public class Main {\n    public static void main(String[] a) {\n        int n = \"1\";\n    }\n}\n"),
     [("other_values", javac("public class Main {\n    public static void main(String[] a) {\n"
                             "        String s = 42;\n    }\n}\n"))]),
    ("java-null-pointer", "the reference is null: initialise it or check it before use",
     java("public class Main {\n    static String name;\n    public static void main(String[] a) {\n"
          "        System.out.println(name.length());\n    }\n}\n"),
     [("other_values", java("import java.util.*;\npublic class Main {\n    public static void main(String[] a) {\n"
                            "        Map<String, String> m = new HashMap<>();\n        m.get(\"k\").trim();\n    }\n}\n"))]),
    ("java-main-class-missing", "compile the class first or give java the right class name",
     sh("java", "java Main"),
     [("other_values", sh("java", "java com.example.App"))]),
    ("java-number-format", "the text is not a number: validate it before Integer.parseInt",
     java("public class Main {\n    public static void main(String[] a) {\n        Integer.parseInt(\"abc\");\n    }\n}\n"),
     [("other_values", java("public class Main {\n    public static void main(String[] a) {\n"
                            "        Long.parseLong(\"12px\");\n    }\n}\n")),
      ("other_language", py("int('abc')\n"))]),

    # ---- git
    ("git-pathspec", "the branch or file does not exist: list them with git branch -a / git status",
     git("git checkout feature-login"),
     [("other_values", git("git checkout release/2.0")),
      ("same_values", git("git checkout feature-login")),
      *localized(git, "git checkout feature-login", langs=("ko", "de"))]),
    ("git-not-a-repo", "run git inside the repository or git init first",
     sh("git", "/usr/bin/git status"),
     [("other_values", sh("git", "/usr/bin/git log --oneline -3")),
      *localized(sh, "git", "/usr/bin/git status", langs=("ko", "de"))]),
    ("git-unknown-command", "check the git subcommand's spelling",
     git("git comit -m x"),
     [("other_values", git("git stats")),
      *localized(git, "git comit -m x", langs=("ko", "de"))]),
    ("git-remote-exists", "the remote already exists: git remote set-url origin URL",
     git("git remote add origin https://example.com/a.git && git remote add origin https://example.com/b.git"),
     [("other_values", git("git remote add upstream ../x && git remote add upstream ../y")),
      *localized(git, "git remote add origin https://example.com/a.git && "
                      "git remote add origin https://example.com/b.git", langs=("ko", "de"))]),
    ("git-merge-conflict", "resolve the conflict markers in the file, git add it, then git commit",
     git("echo a > f.txt && /usr/bin/git add f.txt && /usr/bin/git commit -qm a && /usr/bin/git checkout -qb b && "
         "echo b > f.txt && /usr/bin/git commit -qam b && /usr/bin/git checkout -q - && echo c > f.txt && "
         "/usr/bin/git commit -qam c && /usr/bin/git merge b"),
     [("other_values", git("echo a > app.py && /usr/bin/git add app.py && /usr/bin/git commit -qm a && "
                           "/usr/bin/git checkout -qb topic && echo b > app.py && /usr/bin/git commit -qam b && "
                           "/usr/bin/git checkout -q - && echo c > app.py && /usr/bin/git commit -qam c && "
                           "/usr/bin/git merge topic"))]),
    ("git-push-rejected", "git pull --rebase, then push again",
     git("/usr/bin/git init -q --bare remote.git && /usr/bin/git remote add origin remote.git && "
         "/usr/bin/git push -q origin HEAD:main && /usr/bin/git clone -q remote.git other && "
         "(cd other && /usr/bin/git commit -q --allow-empty -m other && /usr/bin/git push -q origin HEAD:main) && "
         "/usr/bin/git commit -q --allow-empty -m mine && /usr/bin/git push origin HEAD:main"),
     [*localized(git, "/usr/bin/git init -q --bare remote.git && /usr/bin/git remote add origin remote.git && "
                 "/usr/bin/git push -q origin HEAD:main && /usr/bin/git clone -q remote.git other && "
                 "(cd other && /usr/bin/git commit -q --allow-empty -m other && "
                 "/usr/bin/git push -q origin HEAD:main) && "
                 "/usr/bin/git commit -q --allow-empty -m mine && /usr/bin/git push origin HEAD:main",
                 langs=("ko",))]),

    # ---- shell and coreutils
    ("sh-command-not-found", "install the program or fix its name / PATH",
     sh("bash", "pnpm install"),
     [("other_values", sh("bash", "yarn build")),
      ("same_values", sh("bash", "cd . && pnpm install --frozen-lockfile")),
      *localized(sh, "bash", "pnpm install")]),
    ("ls-no-such-file", "the path does not exist: check it with ls of the parent directory",
     sh("ls", "ls build/output"),
     [("other_values", sh("ls", "ls -la dist/assets")),
      *localized(sh, "ls", "ls build/output")]),
    ("rm-is-directory", "use rm -r to remove a directory",
     sh("rm", "mkdir -p build && rm build"),
     [("other_values", sh("rm", "mkdir -p node_modules && rm node_modules")),
      *localized(sh, "rm", "mkdir -p build && rm build")]),
    ("mkdir-exists", "the directory exists already: use mkdir -p",
     sh("mkdir", "mkdir dist && mkdir dist"),
     [("other_values", sh("mkdir", "mkdir out && mkdir out")),
      *localized(sh, "mkdir", "mkdir dist && mkdir dist"),
      ("other_language", py("import os\nos.mkdir('dist')\nos.mkdir('dist')\n"))]),
    ("cp-omitting-directory", "copy a directory with cp -r",
     sh("cp", "mkdir -p assets && cp assets public"),
     [("other_values", sh("cp", "mkdir -p src && cp src backup")),
      *localized(sh, "cp", "mkdir -p assets && cp assets public")]),
    ("sh-not-executable", "make the script executable (chmod +x) or run it with bash",
     sh("bash", "printf 'echo hi\\n' > run.sh && ./run.sh"),
     [("other_values", sh("bash", "printf 'echo hi\\n' > deploy.sh && ./deploy.sh")),
      *localized(sh, "bash", "printf 'echo hi\\n' > run.sh && ./run.sh", langs=("ko", "de"))]),
    ("sh-cd-missing", "the directory does not exist: create it or fix the path",
     sh("bash", "cd frontend && npm install"),
     [("other_values", sh("bash", "cd services/api && make")),
      *localized(sh, "bash", "cd frontend && npm install")]),
    ("sh-syntax-error", "fix the shell syntax near the reported token",
     sh("bash", "bash -c 'if [ 1 ]; echo x; fi'"),
     [("other_values", sh("bash", "bash -c 'for i in 1 2; echo $i; done'")),
      *localized(sh, "bash", "bash -c 'if [ 1 ]; echo x; fi'", langs=("ko", "de"))]),
    ("chmod-missing", "the file does not exist: check the path",
     sh("chmod", "chmod +x scripts/build.sh"),
     [("other_values", sh("chmod", "chmod 644 config/app.yml")),
      *localized(sh, "chmod", "chmod +x scripts/build.sh", langs=("ko", "de"))]),
    ("tar-missing-archive", "the archive does not exist: check the download step",
     sh("tar", "tar xzf release.tar.gz"),
     [("other_values", sh("tar", "tar xf node-v20.tar.xz")),
      *localized(sh, "tar", "tar xzf release.tar.gz")]),
    ("sed-unterminated", "close the s command: s/old/new/",
     sh("sed", "echo a | sed 's/a/b'"),
     [("other_values", sh("sed", "echo x | sed -e 's/foo/bar'")),
      *localized(sh, "sed", "echo a | sed 's/a/b'")]),
    ("grep-missing-file", "the file does not exist: check the path",
     sh("grep", "grep -n TODO src/main.py"),
     [("other_values", sh("grep", "grep -r import lib/app.js")),
      *localized(sh, "grep", "grep -n TODO src/main.py")]),

    # ---- make
    ("make-no-rule", "the target is not in the Makefile: check its name (make -n / make help)",
     Case("make", "make deploy", {"Makefile": MAKEFILE_OK}),
     [("other_values", Case("make", "make test-unit", {"Makefile": MAKEFILE_OK})),
      *localized(Case, "make", "make deploy", {"Makefile": MAKEFILE_OK})]),
    ("make-missing-separator", "indent recipe lines with a tab, not spaces",
     Case("make", "make", {"Makefile": "all:\n    echo building\n"}),
     [("other_values", Case("make", "make build", {"Makefile": "build:\n        cc -o app app.c\n"})),
      *localized(Case, "make", "make", {"Makefile": "all:\n    echo building\n"})]),
    ("make-no-makefile", "run make in the directory that has the Makefile",
     sh("make", "make"),
     [("same_values", sh("make", "mkdir -p sub && make -C sub")),
      *localized(sh, "make", "make")]),

    # ---- databases
    ("pg-no-relation", "create the table (run the migrations) or fix its name",
     psql("SELECT * FROM users"),
     [("other_values", psql("INSERT INTO orders VALUES (1)")),
      ("same_values", psql("SELECT id, email FROM users WHERE id = 1")),
      *localized(psql, "SELECT * FROM users")]),
    ("pg-syntax-error", "fix the SQL syntax near the reported word",
     psql("SELEC 1"),
     [("other_values", psql("SELECT * FORM t")),
      *localized(psql, "SELEC 1")]),
    ("pg-no-column", "the column does not exist: check the schema (\\d table)",
     psql("CREATE TEMP TABLE t(id int); SELECT name FROM t"),
     [("other_values", psql("CREATE TEMP TABLE accounts(id int); SELECT balance FROM accounts")),
      *localized(psql, "CREATE TEMP TABLE t(id int); SELECT name FROM t")]),
    ("pg-unique-violation", "the row exists already: use INSERT ... ON CONFLICT or another key",
     psql("CREATE TEMP TABLE t(id int PRIMARY KEY); INSERT INTO t VALUES (1); INSERT INTO t VALUES (1)"),
     [("other_values", psql("CREATE TEMP TABLE u(email text UNIQUE); INSERT INTO u VALUES ('a'); "
                            "INSERT INTO u VALUES ('a')")),
      *localized(psql, "CREATE TEMP TABLE t(id int PRIMARY KEY); INSERT INTO t VALUES (1); "
                       "INSERT INTO t VALUES (1)")]),
    ("pg-no-server", "start PostgreSQL or point PGHOST/PGPORT at the running server",
     sh("psql", "psql -h 127.0.0.1 -p 5999 -c 'select 1'"),
     [("other_values", sh("psql", "psql -h localhost -p 6543 -U app -c 'select 1'")),
      *localized(sh, "psql", "psql -h 127.0.0.1 -p 5999 -c 'select 1'")]),
    ("sqlite-no-table", "create the table first (run the schema) or fix its name",
     sqlite("SELECT * FROM orders"),
     [("other_values", sqlite("INSERT INTO sessions VALUES (1)")),
      ("other_tool", py("import sqlite3\nsqlite3.connect(':memory:').execute('select * from orders')\n"))]),
    ("sqlite-unique", "the row exists already: use INSERT OR IGNORE / ON CONFLICT",
     sqlite("INSERT INTO users VALUES (2, 'a@example.com')"),
     [("other_values", sqlite("INSERT INTO users VALUES (1, 'b@example.com')")),
      ("other_tool", py("import sqlite3\nc = sqlite3.connect(':memory:')\nc.execute('create table t(k unique)')\n"
                        "c.execute('insert into t values (1)')\nc.execute('insert into t values (1)')\n"))]),
    ("sqlite-no-column", "the column does not exist: check the schema (.schema table)",
     sqlite("SELECT name FROM users"),
     [("other_values", sqlite("UPDATE users SET active = 1"))]),

    # ---- package managers
    ("npm-missing-script", "the script is not in package.json: add it or run an existing one (npm run)",
     Case("npm", "npm run start", {"package.json": '{"name": "app", "version": "1.0.0", "scripts": {"build": "echo"}}\n'}),
     [("other_values", Case("npm", "npm run lint", {"package.json": '{"name": "web", "version": "1.0.0"}\n'})),
      ("same_values", Case("npm", "npm start", {"package.json": '{"name": "api", "version": "2.0.0"}\n'}))]),
    ("npm-no-package-json", "run npm in the project directory (the one with package.json) or npm init",
     sh("npm", "npm run build"),
     [("other_values", sh("npm", "npm test")),
      ("same_values", sh("npm", "npm start"))]),
    ("npm-package-404", "the package name is wrong: check it on the registry",
     sh("npm", "npm view errkb-no-such-package-4xq9 version"),
     [("other_values", sh("npm", "npm view @errkb/no-such-scoped-pkg version"))]),
    ("pip-no-distribution", "the package name is wrong or has no release for this Python",
     sh("pip", f"{sys.executable} -m pip download --no-deps -d /tmp/x errkb-no-such-package-4xq9"),
     [("other_values", sh("pip", f"{sys.executable} -m pip download --no-deps -d /tmp/x pyyaml==0.0.0.1"))]),
    ("pip-no-requirements", "the requirements file is not there: check the path",
     sh("pip", f"{sys.executable} -m pip install -r requirements.txt"),
     [("other_values", sh("pip", f"{sys.executable} -m pip install -r requirements-dev.txt"))]),

    # ---- network and containers
    ("curl-cannot-resolve", "the host name does not resolve: check the URL or the network",
     sh("curl", "curl -sS https://api.example.invalid/v1"),
     [("other_values", sh("curl", "curl -sS http://registry.internal.invalid:5000/v2/")),
      ("other_tool", sh("wget", "wget -q https://api.example.invalid/v1")),
      *localized(sh, "wget", "wget https://api.example.invalid/v1", langs=("ko", "de"))]),
    ("wget-connection-refused", "nothing listens on that port: start the server first",
     sh("wget", "wget -nv http://127.0.0.1:9/health"),
     [("other_values", sh("wget", "wget -nv http://localhost:8765/api")),
      *localized(sh, "wget", "wget -nv http://127.0.0.1:9/health", langs=("ko", "de"))]),
    ("docker-no-daemon", "start the Docker daemon (or Docker Desktop) first",
     sh("docker", "docker ps", env={"DOCKER_HOST": "unix:///tmp/errkb-no-docker.sock"}),
     [("other_values", sh("docker", "docker build -t app .", env={"DOCKER_HOST": "unix:///tmp/errkb-none.sock"},
                          files={"Dockerfile": "FROM scratch\n"})),
      ("same_values", sh("docker", "docker images", env={"DOCKER_HOST": "unix:///tmp/errkb-no-docker.sock"}))]),
    ("terraform-syntax", "fix the HCL syntax at the reported line",
     Case("terraform", "terraform validate -no-color", {"main.tf": "resource \"x\" \"y\" {\n  a = \n}\n"}),
     [("paraphrase", Case("terraform", "terraform fmt -no-color -check",
                            {"main.tf": "variable \"region\" {\n  default = \"eu\"\n\n"}))]),
    ("jq-parse-error", "the input is not valid JSON",
     sh("jq", "echo '{a:1}' | jq .a"),
     [("paraphrase", sh("jq", "printf '{\"k\": [1,}' | jq '.k'"))]),
    ("perl-missing-module", "install the module (cpanm Module::Name)",
     sh("perl", "perl -e 'use YAML::Tiny; 1'"),
     [("other_values", sh("perl", "perl -MJSON::XS -e 1"))]),

    # ---- tests
    ("pytest-assertion", "the test's expected value differs from the result: fix the code or the expectation",
     pytest("def add(a, b):\n    return a - b\n\ndef test_add():\n    assert add(2, 2) == 4\n"),
     [("other_values", pytest("def test_name():\n    assert 'abc'.upper() == 'abd'.upper()\n"))]),
    ("node-test-assertion", "the test's expected value differs from the result",
     Case("node", "node --test", {"app.test.js": "const test = require('node:test');\nconst assert = require('assert');\n"
                                  "test('adds', () => { assert.strictEqual(1 + 1, 3); });\n"}),
     [("other_values", Case("node", "node --test", {"sum.test.js": "const test = require('node:test');\n"
                                                    "const assert = require('assert');\n"
                                                    "test('sum', () => { assert.strictEqual([1].length, 2); });\n"}))]),
]

# Failures the knowledge base has no fix for. Some share strong keywords with
# a stored problem (ModuleNotFoundError, Cannot find, ENOENT, error TS…).
NEGATIVES = [
    py("import importlib\nimportlib.import_module('.x', package=None)\n"),
    py("raise ModuleNotFoundError\n"),
    py("import json\njson.dumps(object())\n"),
    py("import os\nos.remove('/')\n"),
    py("x = [1]\nx.remove(2)\n"),
    py("assert 1 == 2, 'numbers differ'\n"),
    py("import datetime\ndatetime.date(2020, 13, 1)\n"),
    py("raise RuntimeError('database is locked')\n"),
    py("import asyncio\nasyncio.get_event_loop().run_until_complete(1)\n"),
    py("import re\nre.compile('(')\n"),
    py("{}.items()[0]\n"),
    py("'a' + 1\n"),
    py("class A:\n    def __init__(self):\n        pass\n\nA(1)\n"),
    py("import itertools\nnext(iter([]))\n"),
    py("import struct\nstruct.unpack('I', b'')\n"),
    node("new URL('not a url');\n"),
    node("[].reduce((a, b) => a + b);\n"),
    node("const a = []; a.length = -1;\n"),
    node("null.foo = 1;\n".replace("null.foo = 1;", "Object.defineProperty(1, 'x', {});")),
    node("require('fs').mkdirSync('/proc/x');\n"),
    node("Buffer.alloc(-1);\n"),
    node("'abc'.repeat(-1);\n"),
    node("throw new Error('Request failed with status code 500');\n"),
    node("require('assert').deepStrictEqual({a: 1}, {a: 2});\n"),
    node("BigInt(1.5);\n"),
    tsc("const a = [1, 2] as const;\na.push(3);\n"),
    tsc("class A { private x = 1 }\nnew A().x;\n"),
    tsc("function f(): string {}\n"),
    rustc("fn main() {\n    let x = 5;\n    x = 6;\n}\n"),
    rustc("fn main() {\n    let s: &str = String::from(\"a\");\n}\n".replace("let s: &str = String::from(\"a\");",
                                                                           "let r;\n    { let x = 1; r = &x; }\n    println!(\"{}\", r);")),
    rustc("struct S;\nfn main() {\n    println!(\"{}\", S);\n}\n"),
    rustc("fn main() {\n    let v = vec![1];\n    for i in 0..v.len() { v.push(i); }\n}\n"),
    rust_run("fn main() {\n    let d = 0;\n    println!(\"{}\", 1 / d);\n}\n"),
    rust_run("fn main() {\n    let r: Result<i32, String> = Err(\"boom\".into());\n    r.expect(\"config must load\");\n}\n"),
    gcc("struct point { int x; };\nint main(void) {\n    struct point p;\n    return p.y;\n}\n"),
    gcc("void f(int x);\nint main(void) {\n    f(1, 2);\n    return 0;\n}\n"),
    gcc("int main(void) {\n    int x;\n    int x;\n    return 0;\n}\n"),
    gxx("class A { virtual void f() = 0; };\nint main() { A a; }\n"),
    gxx("#include <string>\nint main() { std::string s = 1.5; }\n"),
    javac("public class Main {\n    public static void main(String[] a) {\n        return 1;\n    }\n}\n"),
    javac("public class Other {}\n", cls="Main"),
    java("public class Main {\n    public static void main(String[] a) {\n        Object o = \"s\";\n"
         "        Integer i = (Integer) o;\n    }\n}\n"),
    java("public class Main {\n    public static void main(String[] a) throws Exception {\n"
         "        throw new IllegalStateException(\"not initialised\");\n    }\n}\n"),
    git("/usr/bin/git stash pop"),
    git("/usr/bin/git rebase --continue"),
    git("/usr/bin/git tag v1 && /usr/bin/git tag v1"),
    git("/usr/bin/git branch -d main2"),
    git("/usr/bin/git cherry-pick 0000000"),
    git("/usr/bin/git switch -c x && /usr/bin/git switch -c x"),
    sh("bash", "exit 3"),
    sh("bash", "false"),
    sh("bash", "set -u; echo $UNSET_VARIABLE_X"),
    sh("bash", "kill -9 999999"),
    sh("ln", "touch a && ln -s a b && ln -s a b"),
    sh("mv", "mv a.txt b.txt"),
    sh("df", "df /no/such/mount"),
    sh("sort", "sort -k 0 /dev/null"),
    sh("touch", "touch /proc/x"),
    sh("diff", "printf 'a\\n' > x && printf 'b\\n' > y && diff x y"),
    sh("test", "test -f build/app.js"),
    sh("make", "make -C /nonexistent-dir"),
    Case("make", "make", {"Makefile": "all:\n\tfalse\n"}),
    Case("make", "make", {"Makefile": "all: dep\n"}),
    psql("SELECT 1/0"),
    psql("CREATE TEMP TABLE t(id int); INSERT INTO t VALUES ('x')"),
    psql("DROP TABLE t"),
    psql("SELECT now() + 1"),
    sqlite("SELECT * FROM"),
    sqlite("CREATE TABLE users(x)"),
    Case("npm", "npm install --offline --no-audit errkb-not-cached-pkg-9z", {"package.json": '{"name": "a"}\n'}),
    Case("npm", "npm run build", {"package.json": '{"name": "app", "scripts": {"build": "exit 2"}}\n'}),
    sh("pip", f"{sys.executable} -m pip install --no-index -e ."),
    sh("curl", "curl -sS --max-time 1 http://127.0.0.1:9/ -o /no/such/dir/out"),
    sh("curl", "curl -sS 'http://[::1'"),
    sh("docker", "docker run --no-such-flag alpine"),
    Case("terraform", "terraform plan -no-color", {"main.tf": "variable \"a\" {}\n"}, env={"TF_INPUT": "0"}),
    sh("jq", "echo '1' | jq '.a'"),
    sh("perl", "perl -e 'die \"cannot continue\\n\"'"),
    pytest("import pytest\n\ndef test_x():\n    pytest.fail('not implemented')\n"),
    pytest("def test_x(missing_fixture):\n    pass\n"),
    Case("node", "node --test", {"x.test.js": "const test = require('node:test');\ntest('t', () => { throw new TypeError('bad input'); });\n"}),
    sh("cargo", "cargo new --offline -q app && cargo new --offline -q app"),
    sh("tar", "echo x > a && tar czf a.tgz a && tar xzf a.tgz --no-such-option"),
]

# Not errors at all: help text and success lines that a hook may still see.
NON_ERRORS = [
    sh("git", "/usr/bin/git --help", expect_fail=False),
    sh("ls", "ls --help | head -20", expect_fail=False),
    sh("python", "python3 --help | head -15", expect_fail=False),
    sh("node", "node --help | head -15", expect_fail=False),
    sh("pip", f"{sys.executable} -m pip --version", expect_fail=False),
    sh("npm", "npm --version", expect_fail=False),
    sh("cargo", "cargo --help | head -15", expect_fail=False),
    sh("make", "make --version", expect_fail=False),
    sh("gcc", "printf 'int main(void){return 0;}' > m.c && gcc m.c -o m && echo Build succeeded", expect_fail=False),
    py("print('Successfully installed pyyaml-6.0.1')\n", expect_fail=False),
    py("print('All 42 tests passed in 0.31s')\n", expect_fail=False),
    node("console.log('Server listening on http://localhost:3000');\n", expect_fail=False),
    node("console.log('Compiled successfully in 1.2s');\n", expect_fail=False),
    pytest("def test_ok():\n    assert True\n", expect_fail=False),
    Case("node", "node --test", {"ok.test.js": "require('node:test')('ok', () => {});\n"}, expect_fail=False),
    git("/usr/bin/git status", expect_fail=False),
    git("/usr/bin/git log --oneline", expect_fail=False),
    sh("docker", "docker --version", expect_fail=False),
    sh("terraform", "terraform -help | head -12", expect_fail=False),
    sh("tar", "tar --help | head -12", expect_fail=False),
]


# Problems that are one mistake met in two languages or tools, with fixes
# that stand in for each other: a query of one answered with the other's
# fix is answered correctly (each group's fixes say the same thing).
EQUIVALENT = [
    {"py-name-undefined", "node-not-defined"},
    {"py-address-in-use", "node-eaddrinuse"},
    {"java-number-format", "py-bad-int"},
    {"node-json-parse", "py-json-empty"},
    {"node-missing-package", "tsc-missing-module"},
    {"node-enoent-spawn", "sh-command-not-found"},
    {"py-none-attribute", "node-read-undefined"},
]


def accepted(problem_id):
    """The problems whose fix answers a query of `problem_id`."""
    return sorted(set().union({problem_id}, *(g for g in EQUIVALENT if problem_id in g)))


def shown(cmd):
    """A command as the corpus shows it: no paths of this machine."""
    return cmd.replace(str(VENV_PYTHON), "python3").replace(sys.executable, "python3")


def heldout(problem_id):
    """About a third of the problems, fixed by their id: never looked at
    while tuning."""
    return zlib.crc32(problem_id.encode()) % 3 == 0


class Postgres:
    """A throwaway PostgreSQL server on a socket in the scratch directory."""

    def __init__(self, scratch):
        self.dir = scratch / "pg"

    def __enter__(self):
        if not (PG_BIN / "initdb").exists():
            print("PostgreSQL not installed: psql problems fail to capture", file=sys.stderr)
            return self
        self.dir.mkdir()
        shutil.chown(self.dir, "postgres")
        as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(as_pg + [PG_BIN / "initdb", "-D", self.dir / "data", "-A", "trust"], check=True,
                       capture_output=True)
        subprocess.run(as_pg + [PG_BIN / "pg_ctl", "-D", self.dir / "data", "-w", "-l", self.dir / "log",
                                "-o", f"-k {self.dir} -p {PG_PORT} -c listen_addresses=''", "start"],
                       check=True, capture_output=True)
        self.as_pg = as_pg
        return self

    def __exit__(self, *exc):
        if hasattr(self, "as_pg"):
            subprocess.run(self.as_pg + [PG_BIN / "pg_ctl", "-D", self.dir / "data", "-m", "fast", "stop"],
                           capture_output=True)


def capture(case, scratch, failures):
    try:
        return case.run(scratch)
    except Exception as e:  # noqa: BLE001 - report every broken input at the end
        failures.append(f"{case.tool}: {case.cmd}: {e}")
        return None


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    started = time.monotonic()
    entries, failures = [], []
    with tempfile.TemporaryDirectory(prefix="errkb-corpus-") as tmp:
        scratch = Path(tmp)
        os.chmod(scratch, 0o755)
        with Postgres(scratch):
            for pid, fix, stored, queries in PROBLEMS:
                text = capture(stored, scratch, failures)
                if text is None:
                    continue
                entries.append({"problem": pid, "role": "stored", "kind": None, "tool": stored.tool,
                                "lang": stored.lang or "en", "command": shown(stored.cmd), "fix": fix,
                                "heldout": heldout(pid), "error": text})
                for kind, case in queries:
                    text = capture(case, scratch, failures)
                    if text is not None:
                        entries.append({"problem": pid, "role": "query", "kind": kind, "tool": case.tool,
                                        "lang": case.lang or "en", "command": shown(case.cmd), "fix": fix,
                                        "accepts": accepted(pid),
                                        "heldout": heldout(pid), "error": text})
            for role, cases in (("negative", NEGATIVES), ("non_error", NON_ERRORS)):
                for i, case in enumerate(cases):
                    text = capture(case, scratch, failures)
                    if text is not None:
                        entries.append({"problem": None, "role": role, "kind": role, "tool": case.tool,
                                        "lang": case.lang or "en", "command": shown(case.cmd), "fix": None,
                                        "heldout": i % 3 == 0, "error": text})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(entries, ensure_ascii=False, indent=1) + "\n")
    tools = {e["tool"] for e in entries}
    print(f"{len(entries)} messages from {len(tools)} tools in {time.monotonic() - started:.0f} s -> {out}")
    for f in failures:
        print("could not capture:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
