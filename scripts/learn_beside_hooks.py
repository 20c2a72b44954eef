"""`errkb learn` while live sessions' hooks write to the same database:
`loops` threads each run hook processes one after another (a failure, then
a tool use, with ids of their own) for as long as the import runs. Says
whether every hook's event was stored, how long the hooks took meanwhile,
and how the import went. Used by `make bench` (a large corpus, 8 loops) and
tests/test_health.py (a small one)."""
import json
import subprocess
import threading
import time


def run(runner, db, projects, home, loops=8):
    """The hooks' times are those of hooks that ran while the import did."""
    subprocess.run([str(runner), "--db", str(db), "init"], check=True, capture_output=True,
                   env={"HOME": str(home), "PATH": "/usr/bin:/bin"})  # a user's database exists already
    stop = threading.Event()
    learning = threading.Event()
    lock = threading.Lock()
    latencies, sent, failed = [], [], []

    def loop(n):
        i = 0
        while not stop.is_set():
            i += 1
            tool_use_id = f"toolu_beside_{n}_{i}"
            failure = i % 2 == 1
            body = {"session_id": f"beside-{n}", "transcript_path": "/nowhere.jsonl", "cwd": f"/work/live{n}",
                    "hook_event_name": "PostToolUseFailure" if failure else "PostToolUse", "tool_name": "Bash",
                    "tool_input": {"command": f"make target{i % 7}"}, "tool_use_id": tool_use_id}
            if failure:
                body["error"] = f"make: *** No rule to make target 'target{i % 7}'.  Stop."
            else:
                body["tool_response"] = {"stdout": "ok\n", "stderr": "", "interrupted": False}
            started = time.perf_counter()
            proc = subprocess.run([str(runner), "--db", str(db), "hook", body["hook_event_name"]],
                                  input=json.dumps(body), capture_output=True, text=True,
                                  env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
            with lock:
                if learning.is_set():
                    latencies.append((time.perf_counter() - started) * 1000)
                sent.append(tool_use_id)
                if proc.returncode != 0 or proc.stderr:
                    failed.append(proc.stderr)

    threads = [threading.Thread(target=loop, args=(n,)) for n in range(loops)]
    for t in threads:
        t.start()
    time.sleep(0.2)  # the hooks are running before the import starts
    started = time.perf_counter()
    learning.set()
    learn = subprocess.run([str(runner), "--db", str(db), "learn", str(projects)], capture_output=True, text=True,
                           env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    learn_seconds = time.perf_counter() - started
    learning.clear()
    stop.set()
    for t in threads:
        t.join()
    import sqlite3
    with sqlite3.connect(db) as conn:
        stored = {row[0] for row in conn.execute(
            "SELECT data ->> '$.toolUseId' FROM events WHERE data ->> '$.toolUseId' LIKE 'toolu_beside_%'")}
    latencies.sort()
    return {
        "hooks": len(sent),
        "lost": len(set(sent) - stored),
        "failed": len(failed),
        "p50_ms": latencies[len(latencies) // 2],
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "max_ms": latencies[-1],
        "learn_exit": learn.returncode,
        "learn_seconds": learn_seconds,
        "learn_summary": learn.stdout.strip(),
        "learn_stderr": learn.stderr.strip(),
    }
