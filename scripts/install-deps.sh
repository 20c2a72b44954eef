#!/usr/bin/env bash
# Install the tools errkb needs, in two tiers (make runs this once per tier,
# through a stamp file). Idempotent: does nothing when everything is there.
#
#   install-deps.sh build   what `make`, `make demo` and `make install` need:
#                           Rust (checked: rustup installs it), a C compiler,
#                           sqlite3, python3 with venv
#   install-deps.sh test    what `make test` needs besides: PostgreSQL's
#                           server and psql, node and npm, faketime, GNU time,
#                           openssl, git
#
# Debian/Ubuntu (apt) and macOS (Homebrew) are handled; elsewhere it names
# what is missing. It says what it installs, and why, before it asks for
# sudo. DEPS_INSTALL=no only names what is missing, and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

tier=${1:-build}
missing=()   # tool names
reasons=()   # why each is needed

need() {  # need TOOL WHY: TOOL is missing, for WHY
  missing+=("$1")
  reasons+=("$1: $2")
}

case $tier in
build)
  # Rust: rustup's, not the system's (Debian's rustc is older than errkb needs)
  wanted=$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' Cargo.toml)
  have=$(rustc --version 2>/dev/null | awk '{print $2}' || true)
  if [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$wanted" "$have" | sort -V | head -1)" != "$wanted" ]; then
    echo "errkb needs Rust $wanted or later (found: ${have:-none}). Install it with rustup" >&2
    echo "(https://rustup.rs), or run 'rustup update', then run make again." >&2
    exit 1
  fi
  command -v cc >/dev/null || need cc "a C compiler: SQLite, sqlite-vec and ring are compiled from C"
  command -v sqlite3 >/dev/null || need sqlite3 "the sqlite3 shell: make demo and .load ./dist/errkb"
  command -v python3 >/dev/null || need python3 "the test model is converted by a Python script, in .venv"
  if command -v python3 >/dev/null && ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    need python3-venv "python3 -m venv, for .venv"
  fi
  # Apple's /usr/bin/sqlite3 cannot load extensions: demo and tests need one that can.
  if [ "$(uname -s)" = Darwin ] && command -v sqlite3 >/dev/null \
     && sqlite3 :memory: '.load /nonexistent' 2>&1 | grep -q 'not authorized\|unknown command'; then
    need sqlite3 "Apple's sqlite3 cannot load extensions"
  fi
  ;;
test)
  command -v node >/dev/null || need node "the Claude Code and Codex clients the end-to-end tests drive"
  command -v npm >/dev/null || need npm "installs those clients into .cache, and npm's errkb package is tested"
  command -v faketime >/dev/null || need faketime "a test runs a hook with the clock in year 10000"
  [ -x /usr/bin/time ] || need time "GNU time: tests measure a hook's peak memory"
  command -v openssl >/dev/null || need openssl "the hub's TLS tests make a CA of their own"
  command -v git >/dev/null || need git "the hub knows a project by its git remote"
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if ! command -v initdb >/dev/null && [ ! -x "${pg_bin:-/nonexistent}/initdb" ]; then
    need postgresql "the hub's tests start PostgreSQL servers of their own"
  fi
  command -v psql >/dev/null || need psql "the hub's tests set up members with psql"
  ;;
*)
  echo "usage: $0 build|test" >&2
  exit 2
  ;;
esac

[ ${#missing[@]} -eq 0 ] && exit 0
echo "errkb's '$tier' tier needs what this machine lacks:"
printf '  %s\n' "${reasons[@]}"
if [ "${DEPS_INSTALL:-yes}" = no ]; then
  echo "install these, then run make again (DEPS_INSTALL=no: nothing installed)" >&2
  exit 1
fi

if command -v apt-get >/dev/null; then
  packages=()
  for tool in "${missing[@]}"; do
    case $tool in
      cc) packages+=(gcc libc6-dev) ;;
      node) packages+=(nodejs) ;;
      python3) packages+=(python3 python3-venv) ;;
      postgresql) packages+=(postgresql) ;;
      psql) packages+=(postgresql-client) ;;
      *) packages+=("$tool") ;;
    esac
  done
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd=(sudo)
    echo "installing with sudo (root's rights, for apt-get): apt-get install ${packages[*]}"
  else
    echo "installing: apt-get install ${packages[*]}"
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${packages[@]}" >/dev/null
elif command -v brew >/dev/null; then
  packages=()
  for tool in "${missing[@]}"; do
    case $tool in
      cc) echo "a C compiler: run 'xcode-select --install' (Apple's command line tools), then make again" >&2
          exit 1 ;;
      time) packages+=(gnu-time) ;;
      python3|python3-venv) packages+=(python@3.12) ;;
      npm) ;;  # comes with node
      faketime) packages+=(libfaketime) ;;
      postgresql|psql) packages+=(postgresql@17) ;;
      *) packages+=("$tool") ;;
    esac
  done
  echo "installing with Homebrew (no sudo): brew install ${packages[*]}"
  brew install "${packages[@]}"
  case " ${packages[*]} " in
    *" sqlite "*) echo "Homebrew's sqlite3 is keg-only: put $(brew --prefix sqlite)/bin first on your PATH" ;;
  esac
  case " ${packages[*]} " in
    *" postgresql@17 "*) echo "Homebrew's postgresql@17 is keg-only: put $(brew --prefix postgresql@17)/bin on your PATH" ;;
  esac
else
  echo "please install: ${missing[*]} (then run make again)" >&2
  exit 1
fi
