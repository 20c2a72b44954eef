#!/usr/bin/env python3
"""`make bench`: measure errkb on release builds and write the results into
docs/BENCHMARKS.md (the section between the `core` markers). Medians,
with the machine noted and a baseline measured in the same run; nothing
here asserts a time."""
import datetime
import json
import os
import platform
import random
import re
import shutil
import sqlite3
import statistics
from contextlib import closing
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from corpus import loghub_messages  # noqa: E402

DIST = ROOT / "dist"
EXT = DIST / "errkb.so"
CACHE = ROOT / ".cache" / "bench"
# The schema version sql/schema.sql sets: cached knowledge bases are made anew for each.
SCHEMA_VERSION = int((ROOT / "sql" / "schema.sql").read_text().rsplit("PRAGMA user_version = ", 1)[1].split(";")[0])
DOC = ROOT / "docs" / "BENCHMARKS.md"
SIZES = [1_000, 10_000, 100_000, 1_000_000]
EXAMPLES = ROOT / "target" / "release" / "examples"


def sh(*cmd, **kw):
    """Run a command, return its stdout; keyword arguments go to subprocess.run."""
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    return (f"{cpu}, {os.cpu_count()} cores, Linux {platform.release()}; sqlite3 shell "
            f"{sh('sqlite3', '--version').split()[0]}, node {sh('node', '--version').strip()}, "
            f"errkb {sh(str(DIST / 'errkb'), '--version').split()[-1]}")


# ---- normalize_error throughput -------------------------------------------

def throughput():
    corpus = loghub_messages()
    path = CACHE / "corpus.json"
    path.write_text(json.dumps(corpus))
    rounds = "21"
    js, rust = [], []
    for _ in range(3):  # interleave, so both see the same machine state
        js.append(json.loads(sh("node", str(ROOT / "tests/reference/normalize.mjs"), "--bench", str(path), rounds))["median"])
        rust.append(json.loads(sh(str(EXAMPLES / "normalize_throughput"), str(path), rounds))["median"])
    db = corpus_db(corpus)

    def sql_seconds(expr):
        out = sh("sqlite3", "-cmd", f".load {EXT.with_suffix('')}", str(db),
                 input=f".timer on\nSELECT sum(length({expr})) FROM corpus;\n")
        return float(re.search(r"real ([0-9.]+)", out).group(1))

    sql = [len(corpus) / sql_seconds("normalize_error(text)") for _ in range(7)]
    base = [len(corpus) / sql_seconds("text") for _ in range(7)]
    return {"messages": len(corpus), "avg_chars": sum(map(len, corpus)) / len(corpus),
            "js": statistics.median(js), "rust": statistics.median(rust),
            "sql": statistics.median(sql), "sql_baseline": statistics.median(base)}


# ---- knowledge bases of 1k .. 1M rows ------------------------------------

def corpus_db(corpus=None):
    """The loghub messages in a table, for the sqlite3 shell to read."""
    db = CACHE / "corpus.db"
    if corpus is not None or not db.exists():
        db.unlink(missing_ok=True)
        with closing(sqlite3.connect(db)) as conn, conn:
            conn.execute("CREATE TABLE corpus (text TEXT)")
            conn.executemany("INSERT INTO corpus VALUES (?)", ((m,) for m in corpus or loghub_messages()))
    return db


def base_keys():
    """Distinct normalised keys of real log messages: the templates rows
    are made from."""
    db = corpus_db()
    out = sh("sqlite3", "-cmd", f".load {EXT.with_suffix('')}", str(db),
             "SELECT DISTINCT normalize_error(text) FROM corpus WHERE length(normalize_error(text)) >= 40")
    return sorted(set(out.splitlines()))


def identified_key(keys):
    """The first key whose text says what went wrong: errkb learns only
    from such errors, so an exact hit in use is one of them, and many of
    the corpus's log lines say nothing of the kind."""
    for key in keys:
        quoted = key.replace("'", "''")
        if sh("sqlite3", "-cmd", f".load {EXT.with_suffix('')}", ":memory:",
              f"SELECT error_identified(translate_messages('{quoted}'))").strip() == "1":
            return key
    raise RuntimeError("no key of the corpus says what went wrong")


def build_kb(size, bases):
    db = CACHE / f"kb_{size}.db"
    if db.exists():
        return db
    tmp = db.with_suffix(".tmp")
    for p in CACHE.glob(tmp.name + "*"):
        p.unlink()
    sh("sqlite3", "-cmd", f".load {EXT.with_suffix('')}", str(tmp), f".read {ROOT / 'sql/schema.sql'}")
    rng = random.Random(size)

    def rows():
        # Row i is template i % B, and past the first B rows a variant of it
        # with a distinct tail: every template's 30-character prefix is shared
        # by size/B rows, a crowded case for the prefix stage.
        for i in range(size):
            key = bases[i % len(bases)]
            n = i // len(bases)
            if n:
                word = "".join(chr(97 + (n // 26**k) % 26) for k in range(4))
                key = f"{key} ({word})"
            yield (f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T00:00:00.000Z", key,
                   None if rng.random() < 0.1 else '{"resolvedBy":"success_after_error","tool":"Edit"}',
                   rng.randint(0, 20))

    conn = sqlite3.connect(tmp)
    with conn:
        conn.executemany("INSERT INTO error_kb (ts, error_normalized, resolution, use_count) VALUES (?, ?, ?, ?)", rows())
        conn.execute("ANALYZE")
    conn.close()  # the last close checkpoints the WAL into the file
    tmp.rename(db)
    return db


def queries(db):
    """200 each: exact keys that have a resolution, near misses that share a
    stored key's first 30 characters with a close length, and misses."""
    rng = random.Random(7)
    with closing(sqlite3.connect(db)) as conn, conn:
        keys = [k for (k,) in conn.execute(
            "SELECT error_normalized FROM error_kb WHERE resolution IS NOT NULL ORDER BY random() LIMIT 400")]
    exact = keys[:200]
    prefix = [k[:-2] + "~~" for k in keys[200:400]]
    miss = [f"Zq{rng.randrange(10**6)}: nothing like this was stored {rng.random()}" for _ in range(200)]
    return {"exact": exact, "prefix": prefix, "miss": miss}


def search_latency(db, qs):
    path = CACHE / "queries.json"
    path.write_text(json.dumps(qs))
    return json.loads(sh(str(EXAMPLES / "search_latency"), str(EXT), str(db), str(path), "5"))


# ---- whole processes --------------------------------------------------------

def process_times(db, query, runs=40):
    cmds = {
        "baseline": ["sqlite3", ":memory:", "select 1"],
        "sqlite3_search": ["sqlite3", str(db), "-cmd", f".load {EXT.with_suffix('')}",
                           f"SELECT stage FROM kb_search('{query.replace(chr(39), chr(39) * 2)}')"],
        "runner_search": [str(DIST / "errkb"), "--db", str(db), "search", "--json", query],
    }
    times = {k: [] for k in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            start = time.perf_counter()
            subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append((time.perf_counter() - start) * 1000)
    return {k: statistics.median(v) for k, v in times.items()}


# ---- embeddings -------------------------------------------------------------

MODELS = {  # label → model directory
    "test model, int8 (dist/model)": DIST / "model",
    "test model, float32 (dist/model-fp32)": DIST / "model-fp32",
    "production-shaped stand-in, int8, prepared": CACHE / "standin",
    "production-shaped stand-in, int8, single file": CACHE / "standin-single",
}
PY = sys.executable


def standin():
    """The production-shaped stand-in (random weights, 12 layers, 250k
    pieces) and the same model as the single ONNX file a download holds."""
    if not (CACHE / "standin" / "model.onnx").exists():
        sh(PY, str(ROOT / "scripts/standin_tokenizer.py"), str(CACHE / "standin"))
        sh(PY, str(ROOT / "scripts/bert_onnx.py"), "standin", str(CACHE / "standin"))
    if not (CACHE / "standin" / "tokenizer.errkb").exists():
        # what `errkb model download` leaves: the vocabulary prepared too
        sh(str(DIST / "errkb"), "model", "prepare", str(CACHE / "standin"))
    single = CACHE / "standin-single"
    if not (single / "model.onnx").exists():
        single.mkdir(parents=True, exist_ok=True)
        for f in ("tokenizer.json", "tokenizer_config.json", "sentence_bert_config.json"):
            (single / f).write_bytes((CACHE / "standin" / f).read_bytes())
        sh(PY, "-c", "import onnx, sys; onnx.save_model(onnx.load(sys.argv[1]), sys.argv[2])",
           str(CACHE / "standin/model.onnx"), str(single / "model.onnx"))


def cold(cmd, env, runs=9, stdin=None):
    """Median wall time (ms) and peak RSS (MB) of a whole process, run under
    GNU time: a child forked from this (large) Python process would report
    Python's memory as its own peak. `stdin`: bytes, or a function of the
    run's number giving them."""
    times, rss = [], []
    report = CACHE / "time.out"
    for run in range(runs):
        start = time.perf_counter()
        given = stdin(run) if callable(stdin) else stdin
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(report), *cmd], input=given,
                              env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append((time.perf_counter() - start) * 1000)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd} failed: {proc.stderr.decode()}")
        rss.append(int(report.read_text().split()[-1]) / 1024)
    return statistics.median(times), max(rss)


def vector_kb(model):
    """A small knowledge base whose vectors come from `model`."""
    db = CACHE / f"vectors_{model.name}_schema{SCHEMA_VERSION}.db"
    if not db.exists():
        sh(str(DIST / "errkb"), "--db", str(db), "init")
        with closing(sqlite3.connect(db)) as conn, conn:
            conn.executemany("INSERT INTO error_kb (ts, error_normalized, resolution) VALUES ('t', ?, 'fix')",
                             [(k,) for k in base_keys()[:1000]] + [("Cannot find module <STR>",)])
        subprocess.run([str(DIST / "errkb"), "--db", str(db), "embed"], check=True, capture_output=True,
                       env={**os.environ, "ERRKB_MODEL": str(model)})
    return db


def knn_db(n):
    db = CACHE / f"knn_{n}.db"
    if not db.exists():
        sh("sqlite3", "-cmd", f".load {EXT.with_suffix('')}", str(db), f".read {ROOT / 'sql/schema.sql'}",
           "INSERT INTO vec_error_kb(error_kb_id, embedding) SELECT o.value, vec_normalize(vec_f32("
           "(SELECT json_group_array((abs(random()) % 2001) / 1000.0 - 1.0) FROM generate_series(1, 384) "
           f"WHERE o.value IS NOT NULL))) FROM generate_series(1, {n}) AS o")
    return db


def embeddings():
    standin()
    tool = str(EXAMPLES / "embed_bench")
    ext = str(EXT)
    rows = []
    for label, model in MODELS.items():
        env = {"ERRKB_MODEL": str(model)}
        embed_ms, embed_mb = cold(["sqlite3", ":memory:", "-cmd", f".load {EXT.with_suffix('')}",
                                   "SELECT length(embed('Cannot find module <STR> imported from <PATH>'))"], env)
        db = vector_kb(model)
        # the text stages miss, so the search embeds the query and reaches
        # the vector stage; thresholds wide open, so that it answers (exit 0,
        # stage "vector": checked first) whatever the model's thresholds
        search = [str(DIST / "errkb"), "--db", str(db), "search", "--json",
                  "Module not found: Error: Can't resolve 'react'"]
        wide = {**env, "ERRKB_THRESHOLDS": "2,2"}
        assert json.loads(sh(*search, env={**os.environ, **wide}))["stage"] == "vector"
        search_ms, search_mb = cold(search, wide)
        single = json.loads(sh(tool, ext, "single", "200", env={**os.environ, **env}))
        b1 = json.loads(sh(tool, ext, "batch", "10", env={**os.environ, **env, "ERRKB_EMBED_THREADS": "1"}))
        b2 = json.loads(sh(tool, ext, "batch", "10", env={**os.environ, **env, "ERRKB_EMBED_THREADS": "2"}))
        rows.append(f"| {label} | {embed_ms:.0f} ms / {embed_mb:.0f} MB | {search_ms:.0f} ms / {search_mb:.0f} MB "
                    f"| {single['p50_us'] / 1000:.1f} | {b1['sentences_per_s']:.0f} | {b2['sentences_per_s']:.0f} |")
    tokenizer_rows = []
    for label, path in [("production-shaped, 250,002 pieces (Unigram)", CACHE / "standin/tokenizer.json"),
                        ("test model, 30,522 pieces (WordPiece)", DIST / "model/tokenizer.json")]:
        lib = [json.loads(sh(str(EXAMPLES / "tokenizer_load"), "library", str(path))) for _ in range(3)]
        ours = [json.loads(sh(str(EXAMPLES / "tokenizer_load"), "errkb", str(path))) for _ in range(3)]
        assert lib[0]["ids"] == ours[0]["ids"]
        med = lambda runs, k: statistics.median(r[k] for r in runs)
        tokenizer_rows.append(f"| {label} | {med(lib, 'load_and_encode_ms'):.0f} ms / {med(lib, 'peak_rss_mb'):.0f} MB "
                              f"| {med(ours, 'load_and_encode_ms'):.0f} ms / {med(ours, 'peak_rss_mb'):.0f} MB |")
    knn = []
    for n in (1_000, 10_000, 100_000):
        r = json.loads(sh(tool, ext, "knn", str(knn_db(n)), "20"))
        knn.append(f"| {n:,} | {r['p50_us'] / 1000:.2f} | {r['p90_us'] / 1000:.2f} |")
    drift = []
    pairs = [("The weather is lovely today.", "It''s so sunny outside!", 0.6660),
             ("The weather is lovely today.", "He drove to the stadium.", 0.1046),
             ("It''s so sunny outside!", "He drove to the stadium.", 0.1411)]
    for a, b, published in pairs:
        got = {}
        for name in ("model-fp32", "model"):
            got[name] = float(sh("sqlite3", ":memory:", "-cmd", f".load {EXT.with_suffix('')}",
                                 f"SELECT 1 - vec_distance_cosine(embed('{a}'), embed('{b}'))",
                                 env={**os.environ, "ERRKB_MODEL": str(DIST / name)}))
        drift.append(f"| {a.replace(chr(39) * 2, chr(39))} / {b.replace(chr(39) * 2, chr(39))} | {published:.4f} "
                     f"| {got['model-fp32']:.4f} | {got['model']:.4f} ({got['model'] - published:+.4f}) |")
    return f"""
## Embeddings: embed(), the vector stage, the batch job

Run {datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")} by `make bench` on: {machine()}.
Medians. The production model itself is not downloadable here; its
stand-in has its shapes (12 layers, hidden 384, 250,002-token vocabulary,
int8 per channel, random weights) and a generated 250,002-piece Unigram
tokenizer (`scripts/bert_onnx.py standin`, `scripts/standin_tokenizer.py`).

### Cold start, warm latency, throughput

"Cold" is a whole new process up to its first vector: the sqlite3 shell
running one `embed()`, and the runner's `search` reaching the vector stage
(text stages miss) in a 1,000-row knowledge base. Peak RSS of that process
(measured with GNU `time`).
Warm: in-process `embed()` of one ~15-token error (1 thread, the realtime
setting). Batch: `embed_batch` of 50 error keys.

| model | cold `embed()` (sqlite3) | cold vector search (runner) | warm p50 ms | batch/s, 1 thread | batch/s, 2 threads |
|---|---|---|---:|---:|---:|
{chr(10).join(rows)}

Goals: production-shaped cold start under 150 ms and 150 MB with no daemon
(the JavaScript system: 2 s per query without its daemon, 3.7 s to load
the model); at least 500 sentences/s for the test model (`errkb embed`
uses both cores). The float32 model is compute bound here (about 78 GFLOP/s
on one core at 184/s), which is why the test model ships as int8, as the
production model does.

### Tokenizer load (load + one encode, one process)

| tokenizer.json | tokenizers 0.23 as is | errkb (compact Unigram) |
|---|---|---|
{chr(10).join(tokenizer_rows)}

Both give the same ids (checked here, and by a property test in
`src/unigram.rs`).

### Quantisation drift

Cosine similarities of the all-MiniLM-L6-v2 model card's sentences:

| sentences | published | float32 | int8 per channel (shipped default) |
|---|---:|---:|---:|
{chr(10).join(drift)}

### KNN in vec_error_kb (`k = 3`, random unit vectors)

| stored vectors | p50 ms | p90 ms |
|---:|---:|---:|
{chr(10).join(knn)}

Goal: at most 5 ms at 10k.

### Retrieval on real tool errors

Measured by `make eval` on the real-error corpus: docs/EVAL.md.
"""


# ---- hooks ------------------------------------------------------------------

def hooks_kb():
    """A knowledge base in use: 10,000 error_kb rows (real templates, with
    vectors), each with a fix as errkb learns them (a `fixes` row of its own
    content, its counts, the project it was learned in), and 100,000 events
    over 500 sessions."""
    home = CACHE / "hooks_home_v3"
    db = home / ".reflexion" / "data" / "reflexion.db"
    if db.exists():
        return home, db
    subprocess.run([str(DIST / "errkb"), "init"], env={**os.environ, "HOME": str(home)}, check=True, capture_output=True)
    keys = base_keys()
    rng = random.Random(4)
    with closing(sqlite3.connect(db)) as conn, conn:
        rows = [(f"{keys[i % len(keys)]}" + (f" (v{i // len(keys)})" if i >= len(keys) else ""),) for i in range(10_000)]
        # fixes as errkb learns them: the commands run in between and an
        # edit's before → after, rendered into the advice
        def fix(i):
            return json.dumps({"resolvedBy": "success_after_error", "tool": "Bash", "toolSequence": ["Edit", "Bash"],
                               "command": "npm run build", "file": "/p/src/app.js",
                               "commands": [f"npm install left-pad-{i}"],
                               "edits": [{"file": "/p/src/app.js", "before": "require('./util')",
                                          "after": "require('./utils')"}]})
        conn.executemany("INSERT INTO error_kb (ts, error_normalized, error_raw, resolution, use_count) VALUES "
                         "('2026-01-01T00:00:00.000Z', ?1, ?1, ?2, 1)", [(r[0], fix(i)) for i, r in enumerate(rows)])
        events = []
        for i in range(100_000):
            session = f"session-{i % 500}"
            kind = "tool_error" if rng.random() < 0.2 else "tool_use"
            data = (json.dumps({"tool": "Bash", "error": keys[rng.randrange(len(keys))], "errorRaw": "x"})
                    if kind == "tool_error" else json.dumps({"tool": "Edit", "meta": {"file": f"/p/f{i}.js"}, "success": True}))
            events.append((kind, f"2026-01-01T00:{i // 6000 % 60:02d}:{i // 100 % 60:02d}.{i % 1000:03d}Z", session,
                           f"p{i % 7}", f"/work/p{i % 7}", data))
        conn.executemany("INSERT INTO events (type, ts, session_id, project, project_path, data) VALUES (?,?,?,?,?,?)", events)
    # each row's fix, with the columns and keys errkb's learning gives it
    # (sql/kb_learn.sql), learned once in one session of one project
    fixes = CACHE / "hooks_kb_fixes.sql"
    fixes.write_text("""
INSERT INTO fixes (uid, error_kb_id, error_headline, resolution, fix_key, ts)
SELECT fix_uid(error_normalized, '', fix_key(resolution)), id, '', resolution, fix_key(resolution), ts FROM error_kb;
INSERT INTO fix_counts (fix_id, replica, learned, sessions) SELECT id, '', 1, 1 FROM fixes;
INSERT INTO fix_projects (fix_id, project) SELECT id, project_identity('/work/p' || (id % 7)) FROM fixes;
""")
    subprocess.run([str(DIST / "errkb"), "--db", str(db), "run", str(fixes)], check=True, capture_output=True)
    subprocess.run([str(DIST / "errkb"), "embed"], env={**os.environ, "HOME": str(home)}, check=True, capture_output=True)
    return home, db


def parallel_sessions(pristine):
    """Latency of hook calls while 8 sessions write to one database."""
    import threading
    home = CACHE / "hooks_parallel"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(pristine, home)
    latencies, failures, lock = [], [], threading.Lock()

    def session(s):
        rng = random.Random(s)
        for i in range(200):
            event = rng.choice(["PostToolUseFailure", "PostToolUse", "PostToolUse", "PreToolUse"])
            body = {"session_id": f"par-{s}", "cwd": f"/work/p{s % 3}", "tool_name": rng.choice(["Bash", "Edit"]),
                    "tool_input": {"command": "make", "file_path": f"/src/m{i}.c"}, "error": f"error {i % 17}: cannot build"}
            start = time.perf_counter()
            proc = subprocess.run([str(DIST / "errkb"), "hook", event], input=json.dumps(body).encode(),
                                  capture_output=True, env={**os.environ, "HOME": str(home)})
            with lock:
                latencies.append((time.perf_counter() - start) * 1000)
                if proc.returncode != 0 or proc.stderr:
                    failures.append(event)

    threads = [threading.Thread(target=session, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latencies.sort()
    return (f"{len(latencies)} calls, {len(failures)} failed; p50 {statistics.median(latencies):.1f} ms, "
            f"p99 {latencies[int(len(latencies) * 0.99)]:.1f} ms")


def wall_ms(cmd, env=None, stdin=None):
    """Wall time (ms) of one whole process, from spawn to exit."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, env={**os.environ, **(env or {})},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - start) * 1000
    if proc.returncode != 0 or proc.stderr:
        raise RuntimeError(f"{cmd} failed: {proc.stderr.decode()}")
    return elapsed


def read_back_from_disk(*programs):
    """Drop the programs' files and their shared libraries from the page
    cache (Linux), and run each once, so that every timed run maps files
    read back from disk, as an installed program's are. A file written
    moments before, as `dist/errkb` is by the build, stays in the cache as
    its writes left it, and a process started from it ran here about
    0.3 ms faster than from the same bytes read back: the floor would be
    measured in one state and errkb in the other. (Pages that a running
    process maps, libc's, stay where they are, for both.)"""
    if not hasattr(os, "posix_fadvise"):
        return
    files = set()
    for program in programs:
        path = shutil.which(program[0]) or program[0]
        files.add(os.path.realpath(path))
        libraries = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        files.update(os.path.realpath(m) for m in re.findall(r"(/\S+) \(0x", libraries))
    for name in files:
        fd = os.open(name, os.O_RDONLY)
        try:
            os.fsync(fd)  # dirty pages are not dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    for program in programs:
        subprocess.run(program, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def failure_then_install(base, session, n):
    """What comes before the retry that learns: `python3 app.py` fails on a
    missing module, and the module is installed."""
    return [
        ("PostToolUseFailure", {**base, "session_id": session, "tool_use_id": f"toolu_fail{n}", "tool_name": "Bash",
                                "tool_input": {"command": "python3 app.py"},
                                "error": "Exit code 1\nTraceback (most recent call last):\n  File \"/work/p3/app.py\", "
                                         f"line 1, in <module>\n    import mod{n}\n"
                                         f"ModuleNotFoundError: No module named 'mod{n}'"}),
        ("PostToolUse", {**base, "session_id": session, "tool_use_id": f"toolu_pip{n}", "tool_name": "Bash",
                         "tool_input": {"command": f"pip install mod{n}"},
                         "tool_response": {"stdout": f"Successfully installed mod{n}-1.0\n", "stderr": "",
                                           "interrupted": False}}),
    ]


def codex_rollout(path, call_id, exit_code, size=2 << 20):
    """A Codex session file of about `size` bytes (0.171's records: turns,
    messages, commands and their outputs) whose last record is the end of
    `call_id`, as the PostToolUse hook finds it."""
    if path.exists():
        return path
    lines, n = [], 0
    lines.append(json.dumps({"timestamp": "2026-11-27T14:20:56.000Z", "type": "session_meta",
                             "payload": {"id": "bench", "cwd": "/work/p3", "cli_version": "0.171.0"}}))
    while sum(map(len, lines)) < size:
        n += 1
        lines.append(json.dumps({"timestamp": "2026-11-27T14:21:00.000Z", "type": "response_item", "payload": {
            "type": "function_call", "name": "exec_command", "call_id": f"old_{n}",
            "arguments": json.dumps({"cmd": f"cat src/m{n}.c"})}}))
        lines.append(json.dumps({"timestamp": "2026-11-27T14:21:00.100Z", "type": "event_msg", "payload": {
            "type": "item_completed", "item": {"type": "CommandExecution", "id": f"old_{n}", "status": "completed",
                                               "cwd": "file:///work/p3", "exit_code": 0,
                                               "aggregated_output": "int main(void) { return 0; }\n" * 40}}}))
        lines.append(json.dumps({"timestamp": "2026-11-27T14:21:00.200Z", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"old_{n}",
            "output": "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\n"
                      + "int main(void) { return 0; }\n" * 40}}))
    lines.append(json.dumps({"timestamp": "2026-11-27T14:22:00.000Z", "type": "event_msg", "payload": {
        "type": "item_completed", "item": {"type": "CommandExecution", "id": call_id,
                                           "status": "failed" if exit_code else "completed", "cwd": "file:///work/p3",
                                           "exit_code": exit_code, "aggregated_output": "cc: error\n" * 60}}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def hooks(rounds=41):
    pristine, _ = hooks_kb()
    # in the schema of this errkb (an upgrade is not what is measured)
    subprocess.run([str(DIST / "errkb"), "init"], env={**os.environ, "HOME": str(pristine)}, check=True,
                   capture_output=True)
    # its vectors made by the test model (the model in use), and a copy whose
    # vectors the production-shaped stand-in made, for the case that uses it
    standin()
    subprocess.run([str(DIST / "errkb"), "embed"], env={**os.environ, "HOME": str(pristine)}, check=True,
                   capture_output=True)
    pristine_standin = CACHE / f"hooks_home_v3_standin_schema{SCHEMA_VERSION}"
    if not pristine_standin.exists():
        shutil.copytree(pristine, CACHE / "hooks_home_standin.tmp", dirs_exist_ok=True)
        subprocess.run([str(DIST / "errkb"), "embed"], check=True, capture_output=True,
                       env={**os.environ, "HOME": str(CACHE / "hooks_home_standin.tmp"),
                            "ERRKB_MODEL": str(CACHE / "standin")})
        (CACHE / "hooks_home_standin.tmp").rename(pristine_standin)
    keys = base_keys()
    # an error the knowledge base has a row and a fix for, that says what went wrong
    exact_hit = identified_key(keys)
    base = {"session_id": "session-7", "transcript_path": "/tmp/session-7.jsonl", "cwd": "/work/p3",
            "tool_use_id": "toolu_01"}
    cases = [
        ("PreToolUse (Read)", "PreToolUse", {**base, "tool_name": "Read", "tool_input": {"file_path": "/p/f1.js"}}),
        ("PreToolUse (Bash)", "PreToolUse", {**base, "tool_name": "Bash", "tool_input": {"command": "make"}}),
        ("SubagentStart (executor)", "SubagentStart", {**base, "agent_type": "executor"}),
        # With the tool's output, as Claude Code sends it: a build log, a 40 KB
        # file. Most successes teach nothing: a session with no error to learn.
        ("PostToolUse (Bash), nothing to learn", "PostToolUse",
         {**base, "session_id": "quiet", "tool_name": "Bash", "tool_input": {"command": "make"},
          "tool_response": {"stdout": "cc -O2 -c src/m.c -o build/m.o\n" * 60, "stderr": "", "interrupted": False}}),
        ("PostToolUse (Read, 40 KB file), nothing to learn", "PostToolUse",
         {**base, "session_id": "quiet", "tool_name": "Read", "tool_input": {"file_path": "/p/f2.js"},
          "tool_response": {"type": "text", "file": {"filePath": "/p/f2.js",
                                                     "content": "export const total = (xs) => xs.length;\n" * 1000}}}),
        # The retry that works after a failure and an install (both stored
        # by their hooks before each run, not timed): it learns a new fix.
        ("PostToolUse (Bash), learns a fix", "PostToolUse",
         {**base, "tool_name": "Bash", "tool_input": {"command": "python3 app.py"},
          "tool_response": {"stdout": "ok\n", "stderr": "", "interrupted": False}}),
        ("PostToolUseFailure, exact hit (fix with a command and an edit)", "PostToolUseFailure",
         {**base, "tool_name": "Bash", "tool_input": {}, "error": exact_hit}),
        ("PostToolUseFailure, vector stage", "PostToolUseFailure",
         {**base, "tool_name": "Bash", "tool_input": {}, "error": "Module not found: Error: Can't resolve 'react'"}),
        # A Python traceback, through the signature,
        # the catalog lookup and all three stages, with the production-shaped
        # model (its stand-in: 12 layers, 250,002-token vocabulary, int8).
        ("PostToolUseFailure, vector stage, production-shaped model", "PostToolUseFailure",
         {**base, "tool_name": "Bash", "tool_input": {"command": "python3 app.py"},
          "error": "Exit code 1\nTraceback (most recent call last):\n  File \"/work/p3/app.py\", line 3, in <module>\n"
                   "    import pendulum\nModuleNotFoundError: No module named 'pendulum_x'"}),
    ]
    # Codex's hooks (`errkb hook --agent codex`): the same scripts, after
    # the runner reads how the command ended from the tail of the session
    # file (a 2 MB rollout whose last record is this call's end), or turns a
    # patch into its edits.
    rollout = codex_rollout(CACHE / "codex-rollout.jsonl", "call_01", exit_code=1)
    rollout_ok = codex_rollout(CACHE / "codex-rollout-ok.jsonl", "call_01", exit_code=0)
    codex = {**base, "tool_use_id": "call_01", "turn_id": "019a0000-0000-7000-8000-00000000t001",
             "model": "gpt-5.5", "permission_mode": "bypassPermissions"}
    cases += [
        ("Codex PreToolUse (Bash)", "PreToolUse",
         {**codex, "tool_name": "Bash", "tool_input": {"command": "make"}}, "codex"),
        ("Codex PostToolUse (Bash), succeeded, nothing to learn", "PostToolUse",
         {**codex, "session_id": "quiet", "transcript_path": str(rollout_ok), "tool_name": "Bash",
          "tool_input": {"command": "make"}, "tool_response": "cc -O2 -c src/m.c -o build/m.o\n" * 60}, "codex"),
        ("Codex PostToolUse (Bash), failed: exact hit", "PostToolUse",
         {**codex, "transcript_path": str(rollout), "tool_name": "Bash", "tool_input": {"command": "make"},
          "tool_response": exact_hit}, "codex"),
        ("Codex PostToolUse (apply_patch, 2 hunks), nothing to learn", "PostToolUse",
         {**codex, "session_id": "quiet", "tool_name": "apply_patch", "tool_input": {"command": (
             "*** Begin Patch\n*** Update File: src/app.js\n@@\n-require('./util')\n+require('./utils')\n"
             "@@ function main()\n-  run()\n+  run(args)\n*** End Patch\n")},
          "tool_response": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\n"
                           "M src/app.js\n"}, "codex"),
    ]
    # Each case has its own copy of the knowledge base (hooks learn, and a
    # case must not measure what another taught it), used for all its runs,
    # as one user's hooks use theirs: its log grows and is checkpointed.
    homes = []
    for i, (label, *_) in enumerate(cases):
        home = CACHE / f"hooks_case{i}"
        shutil.rmtree(home, ignore_errors=True)
        env = {"HOME": str(home)}
        if "production-shaped" in label:
            # Its thresholds are the original system's: the vector stage runs to the end.
            shutil.copytree(pristine_standin, home)
            env["ERRKB_MODEL"] = str(CACHE / "standin")
        else:
            shutil.copytree(pristine, home)
        homes.append(env)
    # a case named for an exact hit must find its fix: one that answered
    # nothing would time a shorter path than its name says (the vector
    # stage's cases time the whole search, found or not)
    for (label, event, body, *agent), env in zip(cases, homes):
        if "exact hit" in label:
            hook = [str(DIST / "errkb"), "hook", *(["--agent", agent[0]] if agent else []), event]
            answer = subprocess.run(hook, input=json.dumps({**body, "session_id": "bench-check"}).encode(),
                                    env={**os.environ, **env}, capture_output=True).stdout
            if b"additionalContext" not in answer:
                raise RuntimeError(f"{label}: the hook told nothing")
    read_back_from_disk(["sqlite3", ":memory:", "select 1"], [str(DIST / "errkb"), "--version"])
    floor, times = [], [[] for _ in cases]

    def run(i, round_number):
        label, event, body, *agent = cases[i]
        hook = [str(DIST / "errkb"), "hook", *(["--agent", agent[0]] if agent else []), event]
        if event == "PostToolUseFailure" or label.endswith("exact hit") and agent:
            # a session is told of a fix once: each run is a session
            # that has not heard it, so every run searches and answers
            body = {**body, "session_id": f"bench-{round_number}"}
        if label.endswith("learns a fix"):
            body = {**body, "session_id": f"learn-{round_number}"}
            for step, step_body in failure_then_install(base, body["session_id"], round_number):
                wall_ms([str(DIST / "errkb"), "hook", step], homes[i], json.dumps(step_body).encode())
        times[i].append(wall_ms(hook, homes[i], json.dumps(body).encode()))

    # The cases that load the model (tens of megabytes, 50 ms) leave the
    # CPU's caches cold for the process after them, which then ran up to
    # 0.8 ms slower: they run in rounds of their own, after the others. In
    # shared rounds, the fixed order made one case follow them 9 times in
    # 41 and another never, and their medians differed by that.
    loads_the_model = [i for i, (label, *_) in enumerate(cases) if "vector stage" in label]
    order = [-1] + [i for i in range(len(cases)) if i not in loads_the_model]  # -1: the floor
    rng = random.Random(7)
    for round_number in range(rounds):
        # Every round runs everything once, in a new order: all see the same
        # machine, and none always follows another.
        rng.shuffle(order)
        for i in order:
            if i < 0:
                floor.append(wall_ms(["sqlite3", ":memory:", "select 1"]))
            else:
                run(i, round_number)
    for round_number in range(rounds):
        rng.shuffle(loads_the_model)
        for i in loads_the_model:
            run(i, round_number)
    # SessionEnd starts the embedding job and returns: measured apart, with
    # a pause for the detached job to finish before the next run, each run
    # beside a run of the floor (its ratio is to those).
    end_home = {"HOME": homes[0]["HOME"]}
    session_end, end_floor = [], []
    for _ in range(rounds):
        end_floor.append(wall_ms(["sqlite3", ":memory:", "select 1"]))
        session_end.append(wall_ms([str(DIST / "errkb"), "hook", "SessionEnd"], end_home,
                                   json.dumps({**base, "reason": "exit"}).encode()))
        time.sleep(0.1)
    floor_ms = statistics.median(floor)
    floors = [floor_ms] * len(cases) + [statistics.median(end_floor)]
    _, floor_mb = cold(["sqlite3", ":memory:", "select 1"], {}, runs=5)
    rows = []
    for (label, event, body, *agent), runs, env, its_floor in zip(
            [*cases, ("SessionEnd", "SessionEnd", {**base, "reason": "exit"})], [*times, session_end],
            [*homes, end_home], floors):
        hook = [str(DIST / "errkb"), "hook", *(["--agent", agent[0]] if agent else []), event]
        # (as in the rounds: each run of a failure is a session not told yet)
        fresh = event == "PostToolUseFailure" or label.endswith("exact hit") and agent
        _, mb = cold(hook, env, runs=5,
                     stdin=lambda run: json.dumps({**body, "session_id": f"rss-{run}"} if fresh else body).encode())
        p50 = statistics.median(runs)
        rows.append(f"| {label} | {p50:.2f} | {percentile(runs, 0.9):.2f} | {p50 / its_floor:.2f}× | {mb:.1f} |")
    concurrent = parallel_sessions(pristine)
    return f"""
## Hooks: end to end, as Claude Code and Codex run them

Run {datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")} by `make bench` on: {machine()}.
Process start to exit of `errkb hook <Event>` (Codex: `errkb hook --agent
codex <Event>`) with a realistic payload on stdin; knowledge base of 10,000
error_kb rows (with vectors, test model int8), each with its own fix as
errkb learns them (a `fixes` row, its counts and project: what may be told
is decided on these), and 100,000 events in 500 sessions. A Codex shell
command's PostToolUse also reads how the command ended from the tail of
its session file (a 2 MB rollout, the call's record
last), and a patch runs the success script once per hunk. {rounds} rounds, each running
the floor, bare `sqlite3 :memory: 'select 1'`, and every case once, in a
new random order, so that all see the same machine; median {floor_ms:.2f} ms
for the floor. The two vector-stage cases load the model and leave the
CPU's caches cold for the next process (it ran up to 0.8 ms slower): they
run in {rounds} rounds of their own, after the others, so that no case is
measured more often than another right after them. Before the rounds, both programs' files and their shared
libraries are dropped from the page cache and read back by one run each,
so that both start as installed programs do (see below).
Each case keeps its own copy of the knowledge base for all its runs, so
its write-ahead log grows and is checkpointed as in use (every 64 pages).
Peak RSS from 5 more runs of each under GNU `time` (the floor: {floor_mb:.1f} MB).

| hook | p50 ms | p90 ms | p50 × floor | peak RSS MB |
|---|---:|---:|---:|---:|
{chr(10).join(rows)}

Budget: a text-only hook at most 2× the floor at p50, and under 10 ms
(the JavaScript system: about 100 ms each, 2.1 s when its search
misses); the vector-stage failure hook within the embedding cold-start
goal (150 ms). Where a hook's time goes (callgrind, the failure hook with
an exact hit, on a copy of this knowledge base): about 6.5 million
instructions, nearly two thirds of them SQLite compiling the statements
of the script and of the search (the learning and advice rules), an
eighth reading the file's schema when it opens, a fourteenth the dynamic
loader relocating the position-independent runner; the floor is 2.2
million.
Instructions are less than half of a hook's time: the rest is the kernel's (starting the process, mapping its
files, a page fault at the first touch of each page, about 2.5 µs a page
here). The hooks that store a call also write pages into the write-ahead
log, which every later process reads when it opens the file and a
checkpoint writes again with its fsyncs: the writing hook that finds the
log past 64 pages checkpoints it before it writes (the p90 of the writing
hooks). `errkb`, the program every hook runs, holds no network code:
the team hub's client and the model download's HTTP and TLS are in
`errkb-hub`. Linked in, the hub's cost every process 24 page faults and
about 0.07 ms, the download's 20 to 40 page faults. Ratios to the floor
move by about ±0.1 from one run to another on this machine, more for the writing hooks; a
program's files read back from disk start about 0.3 ms slower than ones
written moments before, hence the reading back above.

### 8 sessions at once

8 threads, each running 200 hook processes in turn (failures, tool uses,
pre-tool checks) against the same knowledge base: {concurrent}.
"""


# ---- errkb learn --------------------------------------------------------------

def learn_corpus(target_mb=210):
    """The generated transcripts `errkb learn` is timed on, made once."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from transcript_corpus import generate
    corpus = CACHE / "transcripts"
    marker = corpus / f".complete-{target_mb}"
    if not marker.exists():
        shutil.rmtree(corpus, ignore_errors=True)
        errors = [e["error"] for e in json.loads((ROOT / "tests" / "fixtures" / "real_errors" / "corpus.json")
                                                 .read_text()) if e.get("role") == "stored"]
        generate(corpus / "projects", int(target_mb * 1e6), errors=errors)
        marker.touch()
    return corpus


def learn(runs=3):
    corpus = learn_corpus()
    files = list((corpus / "projects").rglob("*.jsonl"))
    size = sum(f.stat().st_size for f in files)
    seconds, summary = [], ""
    for _ in range(runs):
        db = CACHE / "learn.db"
        for old in CACHE.glob("learn.db*"):
            old.unlink()
        start = time.perf_counter()
        summary = sh(str(DIST / "errkb"), "--db", str(db), "learn", str(corpus / "projects"),
                     env={"HOME": str(CACHE), "PATH": os.environ["PATH"]})
        seconds.append(time.perf_counter() - start)
    start = time.perf_counter()
    sh(str(DIST / "errkb"), "--db", str(CACHE / "learn.db"), "learn", str(corpus / "projects"),
       env={"HOME": str(CACHE), "PATH": os.environ["PATH"]})
    again = time.perf_counter() - start
    calls = int(re.search(r"(\d+) tool calls", summary).group(1))
    median = statistics.median(seconds)
    return f"""
## errkb learn: importing transcripts

Run {datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")} by `make bench` on: {machine()}.
A generated corpus in Claude Code 2.1's transcript format
(`scripts/transcript_corpus.py`: sessions of reads, commands, real errors
from the real-error corpus with their fixes, parallel calls, subagent
files, compactions, and the client's bookkeeping records): {len(files):,}
files, {size / 1e6:.0f} MB, {calls:,} tool calls ({size / calls / 1e3:.1f} KB of transcript per
call). `errkb --db NEW learn DIR` into an empty database, {runs} runs;
embedding not included (`errkb embed` runs after).

| measure | value |
|---|---:|
| median time | {median:.2f} s (runs: {", ".join(f"{x:.2f}" for x in seconds)}) |
| throughput | **{size / 1e6 / median:.1f} MB/s** (goal ≥ 50) |
| per tool call | {median / calls * 1e6:.0f} µs |
| importing the same files again (all unchanged) | {again:.2f} s |

Last run's summary:

```
{summary.strip()}
```

The time is the hook scripts' (each call runs PostToolUse.sql or
PostToolUseFailure.sql, as the live hook would): a corpus with more bytes
per call (long file reads, larger outputs) imports faster in MB/s.
"""


# ---- errkb learn beside live sessions -------------------------------------------

def learn_beside_hooks(loops=8):
    """The learn corpus imported while `loops` hook loops write to the same
    database (scripts/learn_beside_hooks.py)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from learn_beside_hooks import run
    projects = learn_corpus() / "projects"
    size = sum(f.stat().st_size for f in projects.rglob("*.jsonl"))
    home = CACHE / "beside_home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir()
    db = CACHE / "beside.db"
    for old in CACHE.glob("beside.db*"):
        old.unlink()
    r = run(DIST / "errkb", db, projects, home, loops=loops)
    if r["learn_exit"] != 0 or r["lost"] or r["failed"]:
        raise RuntimeError(f"learn beside hooks: {r}")
    return f"""
## errkb learn beside live sessions

Run {datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")} by `make bench` on: {machine()}.
The learn corpus ({size / 1e6:.0f} MB) imported with `errkb learn` while {loops}
threads each run hook processes one after another against the same
database (a failure, then a success, each with an id of its own), as {loops}
busy sessions would; the database exists before (`errkb init`). Hook times
are those of the hooks that ran while the import did.

| measure | value |
|---|---:|
| hooks run | {r["hooks"]:,} |
| hook events lost | **{r["lost"]}** |
| hook p50 / p99 / max during the import | {r["p50_ms"]:.0f} / **{r["p99_ms"]:.0f}** / {r["max_ms"]:.0f} ms (goal: p99 ≤ 100) |
| import | exit {r["learn_exit"]}, {r["learn_seconds"]:.1f} s ({size / 1e6 / r["learn_seconds"]:.1f} MB/s with the hooks taking their share of 2 cores) |

The import writes in short transactions that take the lock up front and
leaves gaps between them; once it sees another process write, it makes
them shorter (10 ms) and the gaps longer (5 ms): a hook commits each of its
statements on its own, and must get in between the import's batches.
"""


# ---- the vector stage at team scale ---------------------------------------

def team_vectors(sizes=(10_000, 100_000, 1_000_000), queries=200):
    rows = []
    for n in sizes:
        db = CACHE / f"team_vectors_{n}_schema{SCHEMA_VERSION}.db"
        r = json.loads(sh(str(EXAMPLES / "vector_latency"), str(EXT), str(db), str(n), str(queries)))
        e, t = r["exact"], r["two_passes"]
        rows.append(f"| {n:>9,} | {e['p50_ms']:.2f} | {e['p90_ms']:.2f} | {e['found']}/{r['queries']} "
                    f"| {t['p50_ms']:.2f} | {t['p90_ms']:.2f} | {t['found']}/{r['queries']} | {r['agree']}/{r['queries']} |")
    return f"""## The vector stage at team scale

The vector stage's query alone (the query's embedding given), in process
(`examples/vector_latency.rs`, the runner's SQLite with `dist/errkb.so`),
{queries} queries after a warm-up round. "Exact" is `sql/search/vector.sql`
(sqlite-vec's brute-force KNN over the float vectors, what the stage runs
until the embedding job has made the bits); "two passes" is
`sql/search/vector_bits.sql` (the nearest 32 by Hamming distance between
bit vectors, then the exact L2 distance of those, from the vector kept
beside the bits). The vectors are synthetic, unit vectors around a
shared mean direction as a sentence model's are; each query is a stored
vector moved to an L2 distance of 0.3–0.7 (the same error in other
words), and "found" counts the queries whose nearest answer is that row.

| vectors | exact p50 ms | exact p90 ms | exact found | two passes p50 ms | two passes p90 ms | two passes found | same answer |
|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

Goal: two passes at p50 ≤ 10 ms at 100,000 vectors and ≤ 50 ms at
1,000,000. On real errors embedded by the test model, the two passes
give the exact search's answer for every query whose nearest row is
nearer than 1.0 (`tests/test_vector_stage.py`).
"""


# ---- the team hub -----------------------------------------------------------

# 10,000 fixes learned on one replica the way the hooks learn them (kb_learn)
LEARN_10K = """
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)
INSERT INTO kb_learn (ts, error_raw, resolution, project, session_id)
SELECT '2026-01-01T00:00:00Z', 'Error: Cannot find module ''m' || i || '''',
       json_object('resolvedBy', 'success_after_error', 'tool', 'Bash', 'command', 'npm install m' || i),
       '~/work/shop', 's' || i
FROM n;
"""
# 100,000 fixes of other replicas, with their counts, written on the hub directly
HUB_100K = """
INSERT INTO errkb.fixes (uid, project, error_key, signature, headline, resolution, fix_key, sent_by)
SELECT md5('bench' || i), 'github.com/acme/shop', 'Error: module <STR> failed at step ' || i,
       'Error: module <STR> failed at step ' || i, 'Error: module ''p' || i || ''' failed at step ' || i,
       jsonb_build_object('resolvedBy', 'success_after_error', 'tool', 'Bash', 'command', 'make fix-' || i),
       'k' || i, 'other'
FROM generate_series(1, 100000) AS i;
INSERT INTO errkb.counts (uid, replica, learned, sessions)
SELECT md5('bench' || i), 'other', 1, 1 FROM generate_series(1, 100000) AS i;
"""


def hub_bench():
    """errkb sync against a PostgreSQL server of the bench's own (started
    as the tests start it): sending 10,000 fixes, receiving 100,000, an
    empty round trip."""
    from test_hub import MEMBER_PASSWORD, PG_BIN, SUPERUSER_PASSWORD, Server
    errkb = str(DIST / "errkb")
    server = Server()
    homes = CACHE / "hub_homes"
    shutil.rmtree(homes, ignore_errors=True)
    try:
        server.psql("CREATE DATABASE team", db="postgres")
        init = sh(errkb, "hub", "init", server.url(), env={**os.environ, "PGPASSWORD": SUPERUSER_PASSWORD})
        server.psql(init.split("run as the database's owner):\n\n", 1)[1].split("\nThen, on each laptop", 1)[0])
        server.psql(f"CREATE ROLE member LOGIN PASSWORD '{MEMBER_PASSWORD}' IN ROLE errkb_member")
        url = server.url(user="member")

        def replica(name):
            home = homes / name
            project = home / "work" / "shop"
            project.mkdir(parents=True)
            sh("git", "init", "-q", str(project))
            sh("git", "-C", str(project), "remote", "add", "origin", "git@github.com:acme/shop.git")
            env = {**os.environ, "HOME": str(home), "PGPASSWORD": MEMBER_PASSWORD}
            sh(errkb, "hub", "join", url, env=env)
            return env, home / ".reflexion" / "data" / "reflexion.db"

        def timed_sync(env):
            start = time.perf_counter()
            out = sh(errkb, "sync", env=env)
            return (time.perf_counter() - start) * 1000, out.strip().replace("\n", "; ")

        a_env, a_db = replica("a")
        b_env, _ = replica("b")
        sh("sqlite3", "-cmd", f".load {EXT.with_suffix('')}", str(a_db), input=LEARN_10K)
        send_ms, send_out = timed_sync(a_env)
        server.psql(HUB_100K)
        receive_ms, receive_out = timed_sync(b_env)
        empty = [timed_sync(b_env)[0] for _ in range(9)]
        baseline = statistics.median(wall_ms(["sqlite3", ":memory:", "select 1"]) for _ in range(9))
        version = sh(str(PG_BIN / "postgres"), "--version").split()[2]  # postgres (PostgreSQL) 15.x …
    finally:
        server.destroy()
    return f"""## The team hub: errkb sync

A PostgreSQL {version} server on 127.0.0.1 started by the bench (as the
tests start it, `fsync=off`), two replicas (HOMEs) joined to it. Wall
time of the whole `errkb sync` process.

| what | ms | errkb said |
|---|---:|---|
| send 10,000 fixes and their counts (learned on A) | {send_ms:,.0f} | {send_out} |
| receive them and 100,000 more fixes with their counts (on B) | {receive_ms:,.0f} | {receive_out} |
| empty round trip (nothing to send or receive), median of 9 | {statistics.median(empty):.1f} | |
| `sqlite3 :memory: 'select 1'` (baseline) | {baseline:.1f} | |

Hooks never run any of this: their start-up is in the hooks section.
"""


# ---- report -----------------------------------------------------------------

def write_section(name, body):
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n\nWritten by `make bench`; each section is replaced by its own run.\n"
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    section = f"{begin}\n{body.strip()}\n{end}"
    if begin in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: section, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    DOC.write_text(text)


def main():
    CACHE.mkdir(parents=True, exist_ok=True)
    sections = {"embeddings": embeddings, "hooks": hooks, "learn": learn, "learn_beside_hooks": learn_beside_hooks,
                "hub": hub_bench, "team_vectors": team_vectors}
    if sys.argv[1:] and sys.argv[1] in sections:
        body = sections[sys.argv[1]]()
        write_section(sys.argv[1], body)
        print(body)
        return
    print("normalize_error throughput ...", flush=True)
    t = throughput()
    bases = base_keys()
    lines = []
    process = None
    for size in SIZES:
        print(f"knowledge base of {size:,} rows ...", flush=True)
        db = build_kb(size, bases)
        qs = queries(db)
        r = search_latency(db, qs)
        with closing(sqlite3.connect(db)) as conn, conn:
            crowd = statistics.median(
                conn.execute("SELECT count(*) FROM error_kb WHERE substr(error_normalized, 1, 30) = substr(?, 1, 30) "
                             "COLLATE NOCASE", (q,)).fetchone()[0] for q in qs["prefix"])
        lines.append(f"| {size:>9,} | {r['exact']['p50_us']:.1f} | {r['prefix']['p50_us']:.1f} | {r['miss']['p50_us']:.1f} "
                     f"| {r['exact']['p90_us']:.1f} / {r['prefix']['p90_us']:.1f} / {r['miss']['p90_us']:.1f} "
                     f"| {crowd} | {json.dumps(r['exact']['stages'])} {json.dumps(r['prefix']['stages'])} {json.dumps(r['miss']['stages'])} |")
        if size == SIZES[-1]:
            process = process_times(db, qs["prefix"][0])
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    body = f"""
## Core: normalize_error, kb_search text stages, process cost

Run {now} by `make bench` on: {machine()}.
Release build (LTO). Medians unless stated.

### normalize_error throughput

Corpus: the message text of all {t['messages']:,} lines of loghub_2k (16 systems' real logs,
{t['avg_chars']:.0f} characters on average; loghub: https://github.com/logpai/loghub).

| implementation | messages/s |
|---|---:|
| JavaScript reference (`tests/reference/normalize.mjs`, node) | {t['js']:,.0f} |
| errkb, Rust function in a loop (`examples/normalize_throughput.rs`) | {t['rust']:,.0f} |
| errkb through SQL: `SELECT sum(length(normalize_error(text)))` in the sqlite3 shell | {t['sql']:,.0f} |
| baseline for the SQL row: `SELECT sum(length(text))` | {t['sql_baseline']:,.0f} |

Rust / JavaScript: **{t['rust'] / t['js']:.1f}×** (goal ≥ 3×).

### kb_search latency by knowledge-base size

`SELECT stage FROM kb_search(?)` on a prepared statement, timed in process
(`examples/search_latency.rs`, the runner's SQLite with `dist/errkb.so`),
200 queries of each kind × 5 rounds after a warm-up round. Rows are made
from {len(bases):,} real error templates; past that, variants share a
template's first 30 characters, so the prefix stage has many candidates
("prefix crowd" = median number of rows sharing a prefix query's first 30 characters).
"Stages" shows what answered, to show each column measures what it says.
These knowledge bases hold no vectors, so a miss is both text stages plus
the vector stage's check that `vec_error_kb` is empty (no model load); the
vector stage itself is measured in the embeddings section.

| rows | exact p50 µs | prefix p50 µs | miss p50 µs | p90 µs (e / p / m) | prefix crowd | stages (exact, prefix, miss) |
|---:|---:|---:|---:|---|---:|---|
{chr(10).join(lines)}

Goal: p50 under 100 µs at every size.

### One search as a whole process ({SIZES[-1]:,}-row knowledge base, prefix query)

| command | ms |
|---|---:|
| `sqlite3 :memory: 'select 1'` (baseline) | {process['baseline']:.2f} |
| `sqlite3 DB -cmd '.load dist/errkb' "SELECT stage FROM kb_search('…')"` | {process['sqlite3_search']:.2f} |
| `dist/errkb --db DB search --json '…'` | {process['runner_search']:.2f} |
"""
    write_section("core", body)
    print(body)
    for name, section in (("embeddings", embeddings), ("hooks", hooks), ("learn", learn),
                          ("learn_beside_hooks", learn_beside_hooks), ("team_vectors", team_vectors),
                          ("hub", hub_bench)):
        body = section()
        write_section(name, body)
        print(body)


if __name__ == "__main__":
    main()
