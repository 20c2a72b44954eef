"""What is learned from a session, case by case: each case is one session
in Claude Code's transcript format, learned twice: by `errkb learn` from the
transcript, and by the live hooks, fed the payloads Claude Code sends for
the same calls in the same order. Both must store the same events and learn
the same fixes, and those must be the fixes the case expects: only the
tool's own errors, only related successes, each error of a chain, the
decisive step kept, weak fixes marked, no user name stored."""
import json
import sys

import pytest

from conftest import ROOT, connection, runner

sys.path.insert(0, str(ROOT / "scripts"))
from transcript_corpus import Session  # noqa: E402

HOME_CWD = "/Users/alice/work/shop"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file). The user provided the following reason for the "
            "rejection:  use pnpm, and write to alice@example.com")
PY_MISSING = ("Exit code 1\nTraceback (most recent call last):\n  File \"/Users/alice/work/shop/app.py\", line 1, "
              "in <module>\n    import yaml\nModuleNotFoundError: No module named 'yaml'")


def case_rejections_and_blocks_are_not_errors(s):
    s.call("Bash", {"command": "npm install left-pad"}, REJECTED, True)
    s.call("Bash", {"command": "npm install left-pad"}, "ok")
    s.call("Write", {"file_path": f"{HOME_CWD}/CLAUDE.md", "content": "x"},
           f"Claude requested permissions to write to {HOME_CWD}/CLAUDE.md, but you haven't granted it yet.", True)
    s.call("Write", {"file_path": f"{HOME_CWD}/CLAUDE.md", "content": "x"}, "File created")
    s.call("Bash", {"command": "cat .env"}, "PreToolUse:Bash hook error: [guard.sh]: reading .env is blocked", True)
    s.call("Bash", {"command": "cat .env"}, "A=1")
    s.call("Edit", {"file_path": f"{HOME_CWD}/a.py", "old_string": "x", "new_string": "y"},
           "<tool_use_error>String to replace not found in file.</tool_use_error>", True)
    # some clients give a reason typed on declining a call as the bare
    # result: it says nothing identifiable, so none of it is kept
    s.call("Bash", {"command": "git commit -m 'add tokenizer'"},
           "wait, use pnpm for it and add transformer.js too first", True)
    s.call("Bash", {"command": "git commit -m 'add tokenizer'"}, "[main 1a2b3c4] add tokenizer")
    # a warm-up subagent's call, a call while a prompt suggestion is written
    s.call("Glob", {"pattern": "**/*.py"}, "Warmup", True)
    s.call("Read", {"file_path": f"{HOME_CWD}/a.py"}, "No tools needed for suggestion", True)
    return []


def case_windows_powershells_error_record(s):
    """Windows PowerShell's error record says its error after the code it
    quotes; a script's own `throw` is its own check, not learned."""
    parser = ("At line:1 char:8\n+ cd app && npm test\n+        ~~\n"
              "The token '&&' is not a valid statement separator in this version.\n"
              "    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n"
              "    + FullyQualifiedErrorId : InvalidEndOfLine\n")
    s.call("PowerShell", {"command": "cd app && npm test"}, parser, True)
    s.call("PowerShell", {"command": "cd app; npm test"}, "12 passing")
    thrown = ("block not replaced\nAt line:3 char:30\n+ if ($new -eq $old) { throw \"block not replaced\" }\n"
              "+                    ~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
              "    + CategoryInfo          : OperationStopped: (block not replaced:String) [], RuntimeException\n"
              "    + FullyQualifiedErrorId : block not replaced\n")
    script = "$old = Get-Content -Raw a.ts; $new = $old -replace 'x', 'y'\nif ($new -eq $old) { throw \"block not replaced\" }"
    s.call("PowerShell", {"command": script}, thrown, True)
    s.call("PowerShell", {"command": script.replace("'x'", "'x\\r?\\n'")}, "")
    return [("cd app && npm test", "cd app; npm test")]


def case_an_unrelated_success_is_not_a_fix(s):
    s.bash("ls .claude/commands/", error="Exit code 2\nls: .claude/commands/: No such file or directory")
    s.bash("ls -la .claude/settings.json", ".claude/settings.json")
    s.bash("pytest tests/test_a.py", error="Exit code 1\nE   assert 1 == 2\nFAILED tests/test_a.py::test_x - assert 1 == 2")
    s.bash("pytest tests/test_b.py", "1 passed")
    s.bash("npm run build 2>&1", error="Exit code 1\nsrc/a.ts(3,1): error TS2304: Cannot find name 'foo'.")
    s.bash("npm run build 2>&1 | tail -5", "error TS2304 again")  # the filter hides the status: no proof
    return []


def case_the_operation_is_found_past_wrappers(s):
    s.bash("git -C ../repo gc --prune=now", error="Exit code 128\nfatal: bad object 3f9a8b2c4d5e")
    s.bash("git -C ../repo fsck --lost-found", "dangling commit 1a2b3c4d")
    s.bash("git -C ../repo gc --prune=now || true", "")  # || true proves nothing
    s.bash("git -C /srv/repo gc --prune=now", "")
    s.bash("rtk bun run test", error="Exit code 2\nerror: unrecognized subcommand 'bun'")
    s.bash("bun run test 2>&1", "12 pass")
    return [("git -C ../repo gc --prune=now", "git -C /srv/repo gc --prune=now"),
            ("rtk bun run test", "bun run test 2>&1")]


def case_each_error_of_a_chain(s):
    s.bash("mise run lint:full", error="Exit code 1\n[lint] $ eslint .\n/w/src/a.ts\n  3:1  error  'x' is defined "
                                       "but never used  no-unused-vars\n[lint] ERROR task failed")
    s.call("Edit", {"file_path": f"{HOME_CWD}/src/a.ts", "old_string": "let x = 1;\n", "new_string": ""}, "ok")
    s.bash("mise run lint:full", error="Exit code 1\n[lint] $ eslint .\n/w/src/b.ts\n  9:2  error  Missing "
                                       "semicolon  semi\n[lint] ERROR task failed")
    s.call("Edit", {"file_path": f"{HOME_CWD}/src/b.ts", "old_string": "run()", "new_string": "run();"}, "ok")
    s.bash("mise run test", "ok")  # another task: not a retry of lint
    s.bash("mise run lint:full", "0 problems")
    return [("mise run lint:full", "mise run lint:full"), ("mise run lint:full", "mise run lint:full")]


def case_the_decisive_step_is_kept(s):
    s.bash("git status", error="Exit code 128\nfatal: unable to read 3f9a8b2c4d5e6f708192a3b4c5d6e7f8091a2b3c")
    for n in range(6):
        s.bash(f"git fsck --name-objects --no-dangling {n}", "checking objects")
    s.bash("git read-tree HEAD", "")
    s.bash("git status", "On branch main")
    s.bash("python3 app.py", error=PY_MISSING)
    s.bash("pip install pyyaml", "Successfully installed PyYAML-6.0")
    s.bash(f"cd {HOME_CWD} && python3 app.py", "ok")
    return [("git status", "git status"), ("python3 app.py", f"cd {HOME_CWD} && python3 app.py")]


def case_what_the_retry_changed(s):
    denied = "Exit code 1\ngo: failed to trim cache: open /Users/alice/Library/Caches/go-build/trim.txt: operation not permitted"
    s.bash("go test ./...", error=denied)
    s.call("Bash", {"command": "go test ./...", "dangerouslyDisableSandbox": True}, "ok")
    s.bash("npm install", error="Exit code 1\nnpm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree")
    s.bash("npm install --legacy-peer-deps", "added 12 packages")
    s.bash("npm test", error="Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5432")
    s.bash("npm test", "ok")  # nothing changed: weak
    return [("go test ./...", "go test ./..."), ("npm install", "npm install --legacy-peer-deps"),
            ("npm test", "npm test")]


def case_substitutes_across_tools(s):
    s.call("Grep", {"pattern": "useTodos", "path": HOME_CWD},
           "ENOENT: no such file or directory, posix_spawn '/Users/alice/.local/share/claude/versions/2.1.41'", True)
    s.bash("grep -rn useTodos src", "src/a.ts:1")
    s.call("Read", {"file_path": f"{HOME_CWD}/src"}, f"EISDIR: illegal operation on a directory, read '{HOME_CWD}/src'", True)
    s.bash("ls src/", "a.ts b.ts")
    s.bash("tree -L 2", error="Exit code 127\nbash: tree: command not found")
    s.bash("find . -maxdepth 2 -type d", "./src")
    return [("Grep useTodos", "grep -rn useTodos src"), (f"Read {HOME_CWD}/src", "ls src/"),
            ("tree -L 2", "find . -maxdepth 2 -type d")]


def case_a_subagent_is_its_own_stream(s):
    s.bash("python3 app.py", error=PY_MISSING)
    s.bash("pip install pyyaml", "ok", agent="a1b2c3")       # the subagent's, not the main thread's fix
    s.bash("python3 app.py", "ok", agent="a1b2c3")
    s.bash("make build", error="Exit code 2\nmake: *** No rule to make target 'build'.  Stop.", agent="a1b2c3")
    s.call("Edit", {"file_path": f"{HOME_CWD}/Makefile", "old_string": "bild:", "new_string": "build:"}, "ok",
           agent="a1b2c3")
    s.bash("make build", "ok", agent="a1b2c3")
    return [("make build", "make build")]


def case_a_look_at_the_code_without_the_changes_is_no_fix(s):
    failed = "Exit code 1\n--- FAIL: TestSave (0.00s)\n    store_test.go:12: got 1, want 2\nFAIL"
    s.bash("go test ./store", error=failed)
    s.bash("git stash", "Saved working directory and index state WIP on main")
    s.bash("go test ./store", "ok  \texample.com/shop/store\t0.01s")  # the code as it was: no fix
    s.bash("git stash pop", "On branch main")
    s.bash("go test ./store 2>&1 | tail -3", "    store_test.go:12: got 1, want 2\nFAIL")  # a look again
    s.call("Edit", {"file_path": f"{HOME_CWD}/store/save.go", "old_string": "n", "new_string": "n + 1"}, "ok")
    s.bash("go test ./store", "ok  \texample.com/shop/store\t0.01s")
    return [("go test ./store", "go test ./store")]


def case_checks_probes_and_this_codes_own_logic(s):
    s.bash("pytest tests/test_price.py", error="Exit code 1\n>       assert total(3) == 10.0\nE       assert 10.5 == 10.0\n"
                                             "FAILED tests/test_price.py::test_total - assert 10.5 == 10.0")
    s.call("Edit", {"file_path": f"{HOME_CWD}/price.py", "old_string": "round(x, 1)", "new_string": "round(x)"}, "ok")
    s.bash("pytest tests/test_price.py", "1 passed")  # the code's own logic: learned, not advised
    s.bash("npm run build", error="Exit code 2\nsrc/a.ts(3,1): error TS2304: Cannot find name 'foo'.")
    s.bash("npx tsc --noEmit", "src/a.ts(3,1): error TS2304")          # a check: no step
    s.bash("cat > /tmp/probe.ts <<'EOF'\nconst foo = 1\nEOF", "")      # a scratch file: no step
    s.call("Edit", {"file_path": f"{HOME_CWD}/src/a.ts", "old_string": "foo", "new_string": "bar"}, "ok")
    s.bash("npm run build", "built in 1.2s")
    s.bash("npm test", error="Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5432")
    s.call("Bash", {"command": "npm test", "timeout": 600000}, "ok")   # more time for no timeout: weak
    return [("pytest tests/test_price.py", "pytest tests/test_price.py"), ("npm run build", "npm run build"),
            ("npm test", "npm test")]


def case_a_look_at_what_is_not_there_yet_is_no_error(s):
    # a look ahead: the file, the folder are made next, then looked at again
    s.call("Read", {"file_path": f"{HOME_CWD}/NOTES.md"},
           "File does not exist. Note: your current working directory is /Users/alice/work/shop.", True)
    s.call("Write", {"file_path": f"{HOME_CWD}/NOTES.md", "content": "# notes"}, "File created")
    s.call("Read", {"file_path": f"{HOME_CWD}/NOTES.md"}, "# notes")
    s.bash("ls .codex", error="Exit code 2\nls: cannot access '.codex': No such file or directory")
    s.bash("mkdir -p .codex", "")
    s.bash("ls .codex", "")
    # a missing program is an error, though the command only looks
    s.bash("tree src", error="Exit code 127\n/bin/bash: line 1: tree: command not found")
    s.bash("brew install tree", "installed")
    s.bash("tree src", "src\n└── a.py")
    # but a look retried at another path found what it looked for where it
    # is: the path was the error
    s.bash("git -C ~/Projects/shop status",
           error="Exit code 128\nfatal: cannot change to '/Users/alice/Projects/shop': No such file or directory")
    s.bash("git -C ~/work/shop status", "On branch main")
    return [("tree src", "tree src"), ("git -C ~/Projects/shop status", "git -C ~/work/shop status")]


def case_a_fixing_run_that_left_a_problem_and_the_check_passing(s):
    # biome fixes what it safely can, leaves the rest and fails; an edit
    # does the rest, and the check the fixing task stands for passes
    s.bash("bun run lint:fix 2>&1", error="Exit code 1\n$ biome check --write\nsrc/a.ts:3:20 lint/suspicious/noEmptyBlockStatements "
                                         "━━━━━━\n  × Unexpected empty block.\nChecked 12 files in 20ms. Fixed 2 files.")
    s.call("Edit", {"file_path": f"{HOME_CWD}/src/a.ts", "old_string": "catch {}", "new_string": "catch { /* gone */ }"},
           "The file has been updated.")
    s.bash("bun run lint 2>&1", "$ biome check\nChecked 12 files in 18ms. No fixes applied.")
    return [("bun run lint:fix 2>&1", "bun run lint 2>&1")]


def case_results_of_calls_made_together_in_the_order_they_came(s):
    # two calls made together: their results come in the file's order,
    # their times a millisecond the other way round; the one that came
    # last is the success a hook would have seen last
    s.call("Read", {"file_path": f"{HOME_CWD}/src"}, "EISDIR: illegal operation on a directory, read", True)
    s.calls([("Bash", {"command": "ls -la docs"}, "README.md", False), ("Bash", {"command": "ls src"}, "a.py", False)])
    came_first, came_last = s.records[-2], s.records[-1]
    came_first["timestamp"], came_last["timestamp"] = came_last["timestamp"], came_first["timestamp"]
    return [(f"Read {HOME_CWD}/src", "ls src")]


def case_a_piped_retry_that_printed_values_and_one_that_failed_again(s):
    # what a piped retry printed shows no error when its `name: value`
    # lines are values; a program of the line signing its message is one
    s.bash("omp config export data --shell pwsh --output o.json",
           error="Exit code 2\nError: unknown flag: --shell\nUsage:\n  omp config export data [flags]")
    s.bash("omp config export data --output o.json 2>&1 | head -2", "segments: git path session time\ntime: 10:41:00")
    s.bash("node --experimental-strip-types app.ts", error="Exit code 9\nnode: bad option: --experimental-strip-types")
    s.bash("node --experimental-transform-types app.ts 2>&1 | head -5", "node: bad option: --experimental-transform-types")
    return [("omp config export data --shell pwsh --output o.json", "omp config export data --output o.json 2>&1 | head -2")]


def case_a_script_that_could_not_run_runs_through_its_interpreter(s):
    s.bash("./scripts/list-skills.py --all", error="Exit code 126\nzsh:1: permission denied: ./scripts/list-skills.py")
    s.bash("python3 scripts/list-skills.py --all", "1. doc\n2. figma")
    return [("./scripts/list-skills.py --all", "python3 scripts/list-skills.py --all")]


def case_a_parser_rejecting_its_input_is_not_learned(s):
    # jq and Python's json were given something that is not JSON: what
    # went wrong is in the producer, which their words do not name
    s.bash("python3 fetch.py | jq .name", error="Exit code 5\njq: parse error: Invalid numeric literal at line 1, column 10")
    s.bash("python3 fetch.py --json | jq .name", '"widget"')
    s.bash("gh api repos/acme/shop/pulls | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'",
           error="Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                 "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)")
    s.bash("gh api repos/acme/shop/pulls --paginate | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'",
           "12")
    return []


def case_a_filters_own_error_and_the_filter_mended(s):
    # grep could not read its pattern: the same pipeline with the pattern
    # mended is the retry; one fed by another command is not
    s.bash('go test ./... -v 2>&1 | grep -c "--- PASS"',
           error="Exit code 2\ngrep: unrecognized option `--- PASS'\nusage: grep [-abcdDEFGHhIiJLlMmnOopqRSsUVvwXxZz]")
    s.bash("go test ./pkg/... -v 2>&1 | grep -c 'PASS:'", "12")
    s.bash("go test ./... -v 2>&1 | grep -c 'PASS:'", "1000")
    return [('go test ./... -v 2>&1 | grep -c "--- PASS"', "go test ./... -v 2>&1 | grep -c 'PASS:'")]


def case_a_read_that_gave_nothing_is_no_retry(s):
    # the file is too large to read whole; a Read past its end gives no
    # content (Claude Code says so beside it): the Read that gave some is
    # the retry that worked
    log = f"{HOME_CWD}/out/agent.jsonl"
    s.call("Read", {"file_path": log}, "File content (118163 tokens) exceeds maximum allowed tokens (25000). "
           "Please use offset and limit parameters to read specific portions of the file.", True)
    s.call("Read", {"file_path": log, "offset": 4000, "limit": 200},
           "<system-reminder>Warning: the file exists but is shorter than the provided offset (4000). "
           "The file has 75 lines.</system-reminder>",
           tool_use_result={"type": "text", "file": {"filePath": log, "content": "", "numLines": 0,
                                                     "startLine": 4000, "totalLines": 75}})
    s.call("Read", {"file_path": log, "offset": 65, "limit": 10}, '65→{"type":"user"}',
           tool_use_result={"type": "text", "file": {"filePath": log, "content": '{"type":"user"}', "numLines": 1,
                                                     "startLine": 65, "totalLines": 75}})
    return [(f"Read {log}", f"Read {log} (offset 65)")]


def case_work_in_another_folder_is_not_the_fix(s):
    s.bash("cd /Users/alice/work/blog && git commit -m 'add notes'",
           error="Exit code 128\nfatal: not a git repository (or any of the parent directories): .git")
    s.bash("cd /Users/alice/work/shop && git commit -m 'add notes'", "[main 1a2b3c4] add notes")
    s.bash("cd /Users/alice/work/blog && git init", "Initialized empty Git repository")
    s.bash("cd /Users/alice/work/blog && git commit -m 'add notes, again'", "[main 5d6e7f8] add notes")
    return [("cd /Users/alice/work/blog && git commit -m 'add notes'",
             "cd /Users/alice/work/blog && git commit -m 'add notes, again'")]


def case_inline_code_run_again_as_other_code_that_uses_what_failed(s):
    """Inline code that failed on a module it named, run again (other code,
    the same module) after the module was installed: the install fixed it.
    Code that names only part of what the error named (a look at the
    module after an attribute was missing) is not a retry of it."""
    missing = ("Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
               "ModuleNotFoundError: No module named 'yaml'")
    s.bash("python3 -c \"import yaml; print(yaml.safe_load('a: 1'))\"", error=missing)
    s.bash("pip install pyyaml", "Successfully installed PyYAML-6.0.2")
    s.bash("python3 -c \"import yaml; print(yaml.__version__)\"", "6.0.2")
    attribute = ("Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                 "AttributeError: module 'requests' has no attribute 'gett'")
    s.bash("python3 -c \"import requests; requests.gett('http://localhost:8000')\"", error=attribute)
    s.bash("python3 -c \"import requests; print(dir(requests))\"", "['get', 'post']")
    return [("python3 -c \"import yaml; print(yaml.safe_load('a: 1'))\"",
             "python3 -c \"import yaml; print(yaml.__version__)\"")]


def case_inline_code_the_shell_broke_runs_from_a_file(s):
    # a one-line form could not carry the code's indent; the same code in
    # a file ran. A file that was there before is no such fix, nor an
    # error that the file does not change
    s.bash("python3 -c \"import json\n    print(json.dumps({}))\"",
           error="Exit code 1\n  File \"<string>\", line 2\n    print(json.dumps({}))\nIndentationError: unexpected indent")
    s.call("Write", {"file_path": "/tmp/claude/scratch/dump.py", "content": "import json\nprint(json.dumps({}))\n"},
           "File created successfully at: /tmp/claude/scratch/dump.py")
    s.bash("python3 /tmp/claude/scratch/dump.py", "{}")
    s.bash("node -e \"require('yaml')\"", error="Exit code 1\nError: Cannot find module 'yaml'")
    s.call("Write", {"file_path": f"{HOME_CWD}/check.js", "content": "require('yaml')\n"}, "File created")
    s.bash("node check.js", "ok")
    return [("python3 -c \"import json\n    print(json.dumps({}))\"", "python3 /tmp/claude/scratch/dump.py")]


def case_a_line_out_of_time_given_more_time(s):
    # the agent's shell stopped a polling loop at its time limit; the same
    # loop, reworked, in the background, and a build given a longer
    # timeout, are the fixes; another loop in the background is not
    poll = ('for i in $(seq 1 40); do\n'
            "  out=$(gh pr view 538 --repo acme/shop --json statusCheckRollup --jq '[.statusCheckRollup[]?|select(.name!=null)|{n:.name,s:.status,c:.conclusion}]')\n"
            '  pending=$(echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); print(sum(1 for x in d if x[\'s\']!=\'COMPLETED\'))")\n'
            '  if [ "$pending" = "0" ]; then echo "ALL COMPLETE"; echo "$out" | python3 -c "import json,sys; [print(x[\'c\'],x[\'n\']) for x in json.load(sys.stdin)]"; break; fi\n'
            '  sleep 30\n'
            'done\n'
            'echo "=== final ==="; gh pr view 538 --repo acme/shop --json mergeable,mergeStateStatus --jq \'{mergeable,mergeStateStatus}\'')
    reworked = ('for i in $(seq 1 60); do\n'
                "  out=$(gh pr view 538 --repo acme/shop --json statusCheckRollup --jq '[.statusCheckRollup[]?|select(.name!=null)|{n:.name,s:.status,c:.conclusion}]' 2>/dev/null)\n"
                '  [ -z "$out" ] && { sleep 30; continue; }\n'
                '  pending=$(echo "$out" | python3 -c "import json,sys; print(sum(1 for x in json.load(sys.stdin) if x[\'s\']!=\'COMPLETED\'))")\n'
                '  if [ "$pending" = "0" ]; then\n'
                '    echo "ALL COMPLETE"\n'
                '    echo "$out" | python3 -c "import json,sys; [print(f\\"{x[\'c\']:10} {x[\'n\']}\\") for x in json.load(sys.stdin)]"\n'
                '    gh pr view 538 --repo acme/shop --json mergeable,mergeStateStatus --jq \'"mergeable=\\(.mergeable) state=\\(.mergeStateStatus)"\'\n'
                '    break\n'
                '  fi\n'
                '  sleep 30\n'
                'done')
    s.call("Bash", {"command": poll, "timeout": 600000}, "Exit code 143\nCommand timed out after 10m 0s", True)
    s.call("Bash", {"command": "for i in 1 2; do gh run list --limit 1; sleep 5; done", "run_in_background": True},
           "Command running in background with ID: b7k2m9q1x.")
    s.call("Bash", {"command": reworked, "run_in_background": True}, "Command running in background with ID: b8k2m9q1x.")
    s.bash("cargo build --release && cargo test", error="Exit code 143\nCommand timed out after 2m 0s")
    s.call("Bash", {"command": "cargo build --release && cargo test", "timeout": 600000}, "test result: ok")
    return [(poll, reworked), ("cargo build --release && cargo test", "cargo build --release && cargo test")]


CASES = [case for name, case in sorted(globals().items()) if name.startswith("case_")]


def build(case):
    s = Session(cwd=HOME_CWD)
    s.startup()
    s.prompt("work")
    expected = case(s)
    return s, expected


def payloads(session):
    """What Claude Code sends the hooks for the session's calls, in the
    order their results arrived: a failure's PostToolUseFailure, a
    success's PostToolUse; its input checks reach no hook."""
    records = [r for r in session.records if isinstance(r, dict)]
    for agent, own in session.subagents.items():
        records += own
    records.sort(key=lambda r: r.get("timestamp", ""))
    uses, out = {}, []
    for r in records:
        content = (r.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_use":
                uses[block["id"]] = (block["name"], block["input"])
            elif block.get("type") == "tool_result":
                name, tool_input = uses[block["tool_use_id"]]
                text = block["content"]
                if text.startswith("<tool_use_error>"):
                    continue
                payload = {"session_id": r["sessionId"], "cwd": r["cwd"], "tool_name": name, "tool_input": tool_input,
                           "tool_use_id": block["tool_use_id"]}
                if r.get("agentId"):
                    payload["agent_id"] = r["agentId"]
                if block.get("is_error"):
                    out.append(("PostToolUseFailure", {**payload, "hook_event_name": "PostToolUseFailure",
                                                       "error": text, "is_interrupt": False}))
                else:
                    # (the call's result as the client keeps it, which is
                    # what it sends as tool_response)
                    response = r.get("toolUseResult")
                    out.append(("PostToolUse", {**payload, "hook_event_name": "PostToolUse",
                                                "tool_response": response if isinstance(response, dict)
                                                else {"stdout": text}}))
    return out


def stored(db):
    """Events and fixes as both ways must store them (what is the same
    whatever the clock: no times, no row ids)."""
    with connection(db) as conn:
        ids = dict(conn.execute("SELECT id, data ->> '$.toolUseId' FROM events"))
        events = sorted(conn.execute(
            "SELECT data ->> '$.toolUseId', type, json_remove(data, '$.toolUseId') FROM events "
            "WHERE type <> 'advice'").fetchall())
        learned = sorted((ids[e], ids[s], tuple(ids[i] for i in json.loads(steps or "[]")), uid, weak,
                          json.dumps({k: v for k, v in json.loads(res).items() if k != "sessionId"}, sort_keys=True))
                         for e, s, steps, uid, weak, res in conn.execute(
                             "SELECT l.event_id, l.success_event_id, l.steps, f.uid, f.weak, f.resolution "
                             "FROM learned_errors AS l JOIN fixes AS f ON f.id = l.fix_id"))
        counts = sorted(conn.execute("SELECT f.uid, c.replica, c.learned, c.sessions FROM fix_counts AS c "
                                     "JOIN fixes AS f ON f.id = c.fix_id"))
    return events, learned, counts


def described(session, tool_use_id):
    for r in [*session.records, *[x for own in session.subagents.values() for x in own]]:
        if isinstance(r, dict):
            for block in (r.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("id") == tool_use_id:
                    i = block["input"]
                    part = f" (offset {i['offset']})" if "offset" in i else ""
                    return i.get("command") or f"{block['name']} {i.get('file_path') or i.get('pattern')}{part}"
    raise KeyError(tool_use_id)


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[len("case_"):] for c in CASES])
def test_learn_and_the_hooks_learn_the_same_and_only_what_fixed_it(case, tmp_path):
    session, expected = build(case)
    projects = tmp_path / "projects"
    session.write(projects)
    learned_db = tmp_path / "learned.db"
    out = runner("--db", str(learned_db), "learn", str(projects), env={"HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    live_home = tmp_path / "live"
    for event, payload in payloads(session):
        proc = runner("hook", event, stdin=json.dumps(payload), env={"HOME": str(live_home)})
        assert (proc.returncode, proc.stderr) == (0, "")
    live_db = live_home / ".reflexion" / "data" / "reflexion.db"
    by_learn, by_hooks = stored(learned_db), stored(live_db)
    assert by_learn == by_hooks
    events, learned, _ = by_learn
    # only the expected pairs: (failed call, success that showed it fixed)
    pairs = sorted((described(session, e), described(session, s)) for e, s, *_ in learned)
    assert pairs == sorted(expected)
    # nothing of the user's: no name from a home folder, no words of a rejection
    for db in (learned_db, live_db):
        dump = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
        assert b"alice" not in dump and b"use pnpm" not in dump


def test_what_each_case_learns_looks_right(tmp_path):
    """The fixes themselves, for the cases where what is kept matters."""
    fixes = {}
    for case in (case_the_decisive_step_is_kept, case_what_the_retry_changed, case_each_error_of_a_chain,
                 case_a_look_at_the_code_without_the_changes_is_no_fix, case_work_in_another_folder_is_not_the_fix,
                 case_checks_probes_and_this_codes_own_logic, case_a_filters_own_error_and_the_filter_mended):
        session, _ = build(case)
        projects = tmp_path / case.__name__
        session.write(projects)
        db = tmp_path / f"{case.__name__}.db"
        runner("--db", str(db), "learn", str(projects), env={"HOME": str(tmp_path)}, check=True)
        with connection(db) as conn:
            for headline, resolution, weak in conn.execute("SELECT error_headline, resolution, weak FROM fixes"):
                fixes[headline] = (json.loads(resolution), weak)
    git = fixes["fatal: unable to read 3f9a8b2c4d5e6f708192a3b4c5d6e7f8091a2b3c"][0]
    assert git["commands"][-1] == "git read-tree HEAD"            # the decisive step, kept when cut
    assert len(git["commands"]) == 5 and "git status" not in git["commands"]
    sandbox = next(f for h, (f, _) in fixes.items() if "operation not permitted" in h)
    assert sandbox["changed"] == ["dangerouslyDisableSandbox"]
    assert "~/Library" in json.dumps(sandbox) and "alice" not in json.dumps(sandbox)
    assert fixes["npm error code ERESOLVE"][0]["changed"] == ["--legacy-peer-deps"] if "npm error code ERESOLVE" in fixes \
        else any(f.get("changed") == ["--legacy-peer-deps"] for f, _ in fixes.values())
    weak = [f for f, w in fixes.values() if w]
    # (the two cases' ECONNREFUSED share a headline: the last one, with more
    # time for an error that was no timeout, is kept here)
    assert sorted(f["command"] for f in weak) == ["npm test", "pytest tests/test_price.py"]
    lint = [f for h, (f, _) in fixes.items() if "no-unused-vars" in h or "semi" in h]
    assert len(lint) == 2 and all(f["edits"] for f in lint)
    # the chain's first error keeps both edits, the second only its own
    assert sorted(len(f["edits"]) for f in lint) == [1, 2]
    # neither the stash, nor the look again, nor work in another folder is
    # a step; another commit message is no change
    store = next(f for h, (f, _) in fixes.items() if "got 1, want 2" in h)
    assert "commands" not in store and len(store["edits"]) == 1
    built = next(f for h, (f, _) in fixes.items() if "TS2304" in h)
    assert "commands" not in built and built["edits"][0]["after"] == "bar"
    # the filter that failed, as the retry ran it
    grep = next(f for h, (f, _) in fixes.items() if h.startswith("grep: unrecognized option"))
    assert grep["changed"] == ["grep -c PASS:"]
    repo = fixes["fatal: not a git repository (or any of the parent directories): .git"][0]
    assert repo["commands"] == ["cd ~/work/blog && git init"] and "changed" not in repo


def test_what_is_not_the_tools_own_error_keeps_no_text(tmp_path):
    """Claude Code's refusals are stored as what they are, without text; an
    error whose output says nothing identifiable keeps none of it either."""
    session, _ = build(case_rejections_and_blocks_are_not_errors)
    projects = tmp_path / "projects"
    session.write(projects)
    db = tmp_path / "kb.db"
    runner("--db", str(db), "learn", str(projects), env={"HOME": str(tmp_path)}, check=True)
    with connection(db) as conn:
        rows = conn.execute("SELECT type, data FROM events WHERE type IN ('tool_error', 'tool_blocked')").fetchall()
    failed = {(json.loads(d)["tool"], t, json.loads(d).get("kind")) for t, d in rows}
    assert {("Glob", "tool_blocked", "denied"), ("Read", "tool_blocked", "denied")} <= failed
    bare = [json.loads(d) for t, d in rows if t == "tool_error" and json.loads(d).get("subject") == "git commit"]
    assert len(bare) == 1 and bare[0]["identified"] is False
    assert not {"error", "errorRaw", "signature", "headline"} & bare[0].keys()
    assert all(t == "tool_blocked" for t, d in rows if json.loads(d)["tool"] != "Bash" or "npm" in d or ".env" in d)
