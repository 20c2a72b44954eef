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
DOC = ROOT / "docs" / "BENCHMARKS.md"
SIZES = [1_000, 10_000, 100_000, 1_000_000]
EXAMPLES = ROOT / "target" / "release" / "examples"


def sh(*cmd, **kw):
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
    db = CACHE / "corpus.db"
    db.unlink(missing_ok=True)
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("CREATE TABLE corpus (text TEXT)")
        conn.executemany("INSERT INTO corpus VALUES (?)", ((m,) for m in corpus))

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

def base_keys():
    """Distinct normalised keys of real log messages: the templates rows
    are made from."""
    db = CACHE / "corpus.db"
    out = sh("sqlite3", "-cmd", f".load {EXT.with_suffix('')}", str(db),
             "SELECT DISTINCT normalize_error(text) FROM corpus WHERE length(normalize_error(text)) >= 40")
    return sorted(set(out.splitlines()))


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


def queries(db, size, bases):
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
    print("normalize_error throughput ...", flush=True)
    t = throughput()
    bases = base_keys()
    lines = []
    process = None
    for size in SIZES:
        print(f"knowledge base of {size:,} rows ...", flush=True)
        db = build_kb(size, bases)
        qs = queries(db, size, bases)
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


if __name__ == "__main__":
    main()
