#!/usr/bin/env bash
# Install the tools building and testing errkb needs, once (make runs this
# through a stamp file). Idempotent: does nothing when everything is there.
# Debian/Ubuntu (apt) and macOS (Homebrew) are handled; elsewhere it names
# what is missing.
set -euo pipefail

missing=()
command -v sqlite3 >/dev/null || missing+=(sqlite3)
command -v node >/dev/null || missing+=(node)
command -v npm >/dev/null || missing+=(npm)
[ -x /usr/bin/time ] || missing+=(time)          # make bench: peak RSS of one process
command -v python3 >/dev/null || missing+=(python3)
command -v faketime >/dev/null || missing+=(faketime)   # tests: a hook with the clock in year 10000
command -v git >/dev/null || missing+=(git)             # the hub: a project is known by its git remote
command -v openssl >/dev/null || missing+=(openssl)     # tests: the hub's TLS, with a CA of the tests' own
# tests: a real PostgreSQL server for the hub (initdb, pg_ctl) and psql
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if ! command -v initdb >/dev/null && [ ! -x "${pg_bin:-/nonexistent}/initdb" ]; then
  missing+=(postgresql)
fi
command -v psql >/dev/null || missing+=(postgresql)

# Apple's /usr/bin/sqlite3 cannot load extensions: the tests need one that can.
if [ "$(uname -s)" = Darwin ] && ! sqlite3 :memory: '.load /nonexistent' 2>&1 | grep -qv 'not authorized\|unknown command'; then
  missing+=(sqlite3)
fi

[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
if command -v apt-get >/dev/null; then
  packages=()
  for tool in "${missing[@]}"; do
    case $tool in
      node) packages+=(nodejs) ;;
      python3) packages+=(python3 python3-venv) ;;
      postgresql) packages+=(postgresql postgresql-client) ;;
      *) packages+=("$tool") ;;
    esac
  done
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${packages[@]}" >/dev/null
elif command -v brew >/dev/null; then
  packages=()
  for tool in "${missing[@]}"; do
    case $tool in
      time) packages+=(gnu-time) ;;
      python3) packages+=(python@3.11) ;;
      npm) ;;  # comes with node
      postgresql) packages+=(postgresql@15) ;;
      *) packages+=("$tool") ;;
    esac
  done
  brew install "${packages[@]}"
  echo "Homebrew's sqlite3 is keg-only: put $(brew --prefix sqlite)/bin first on your PATH"
else
  echo "please install: ${missing[*]} (then run make again)" >&2
  exit 1
fi
