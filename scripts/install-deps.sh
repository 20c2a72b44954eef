#!/usr/bin/env bash
# Install what building and testing errkb needs on a Debian machine, once.
# Idempotent: does nothing when everything is already there.
set -euo pipefail

need_apt=()
command -v sqlite3 >/dev/null || need_apt+=(sqlite3)
command -v node >/dev/null || need_apt+=(nodejs)
[ -x /usr/bin/time ] || need_apt+=(time)   # make bench: peak RSS of one process
command -v python3 >/dev/null || need_apt+=(python3 python3-venv)
command -v faketime >/dev/null || need_apt+=(faketime)   # tests: a hook with the clock in year 10000

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing: ${need_apt[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
