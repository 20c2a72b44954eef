#!/usr/bin/env bash
# `make demo`: a tour of errkb on a throwaway knowledge base. Records a few
# fixes, then looks errors up through the sqlite3 shell and the runner, and
# shows what a coding agent would be told.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ERRKB_DB="$work/reflexion.db"
errkb=dist/errkb
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Record three fixes (errkb record; keys come from normalize_error)"
$errkb record --error "Cannot find module '/Users/dev/project/src/index.ts'" \
  --resolution '{"resolvedBy":"success_after_error","tool":"Bash","toolSequence":["Read","Edit","Bash"],"command":"npm install"}' \
  --resolved-by Bash --tool-sequence Read,Edit,Bash
$errkb record --error "TypeError: Cannot read properties of undefined (reading 'map') at /app/src/list.js:12:7" \
  --resolution '{"resolvedBy":"success_after_error","tool":"Edit","toolSequence":["Read","Edit"],"file":"list.js"}' \
  --resolved-by Edit --tool-sequence Read,Edit
$errkb record --error "error[E0425]: cannot find value 'x' in this scope" \
  --resolution "declare the variable before use" --resolved-by Edit

step "The same error with other paths and numbers has the same key"
sqlite3 "$ERRKB_DB" -cmd '.load dist/errkb' \
  "SELECT normalize_error('Cannot find module ''/home/ci/app/main.js''');"

step "kb_search through the sqlite3 shell: exact stage"
sqlite3 -header -column "$ERRKB_DB" -cmd '.load dist/errkb' \
  "SELECT stage, error_normalized, use_count FROM kb_search(normalize_error('Cannot find module ''/home/ci/app/main.js'''));"

step "kb_search: prefix stage (same first 30 characters, similar length)"
sqlite3 -header -column "$ERRKB_DB" -cmd '.load dist/errkb' \
  "SELECT stage, error_normalized FROM kb_search(normalize_error('TypeError: Cannot read properties of undefined (reading ''id'') at <anonymous>'));"

step "The runner: errkb search"
$errkb search "Cannot find module '/tmp/other/place.ts'"
$errkb search "something never seen before" || echo "(exit $?: no match)"

step "Search looks at what identifies an error, not at the output around it"
$errkb search "$(printf 'Exit code 1\n/srv/web/src/table.js:40\n  rows.map(render)\n       ^\n\nTypeError: Cannot read properties of undefined (reading '"'"'map'"'"')\n    at render (/srv/web/src/table.js:40:8)\n\nNode.js v20.20.2')"
echo "(another error code is another problem:)"
$errkb search "error[E0433]: cannot find value 'x' in this scope" || echo "(exit $?: no match)"

step "A tool's message in Korean finds the fix learned from English (errkb catalog)"
$errkb record --error "make: *** No rule to make target 'deploy'.  Stop." --resolution "check the target's name in the Makefile"
$errkb catalog --lang ko
$errkb search "make: *** 타겟 'install'을(를) 만들 규칙이 없습니다.  멈춤." \
  || echo "(exit $?: no match; this machine has no Korean catalog of make)"

step "Embed the knowledge base (errkb embed) for the vector stage"
$errkb embed
$errkb search "ModuleNotFoundError: No module named 'requests'" \
  || echo "(exit $?: no match; the test model's calibrated thresholds keep the vector stage for near twins)"

step "What the agent is told: the PostToolUseFailure hook, with a Claude Code payload"
printf '%s' '{"session_id":"demo","cwd":"/work/shop","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"node src/server.ts"},"tool_use_id":"toolu_1","error":"Error: Cannot find module '"'"'/srv/api/server.ts'"'"'"}' \
  | $errkb hook PostToolUseFailure | python3 -c 'import json,sys; print(json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"])'

step "Loaded versions"
sqlite3 "$ERRKB_DB" -cmd '.load dist/errkb' "SELECT errkb_debug();"
