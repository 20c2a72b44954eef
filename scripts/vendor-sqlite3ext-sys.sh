#!/usr/bin/env bash
# Refresh vendor/sqlite3ext-sys: the type and constant bindings of
# sqlite3ext.h that sqlite-loadable builds on, without a SQLite of its own.
#
# Why vendored: the crates.io package (0.0.1) compiles a private SQLite
# 3.39.4 (sqlite3.c, with SQLITE_CORE) and runs bindgen, so every build
# needed libclang and spent half a minute on a SQLite the extension never
# calls (it calls the host's, through the API table it is handed). That copy
# also kept the runner from linking the extension: two SQLite libraries in
# one program. The vendored crate holds the same bindgen output with every
# `extern "C"` block removed, so nothing can call a SQLite function other
# than through the API table. Needs libclang (bindgen) once, here only.
# Usage: scripts/vendor-sqlite3ext-sys.sh
set -euo pipefail
version=0.0.1
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/scripts/crate-source.sh"
crate_project "$tmp" sqlite3ext-sys "$version"
(cd "$tmp" && cargo build -q)
bindings=$(ls "$tmp"/target/debug/build/sqlite3ext-sys-*/out/bindings.rs)
python3 - "$bindings" "$here/vendor/sqlite3ext-sys/src/bindings.rs" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# bindgen writes each declaration as its own top-level `extern "C" { ... }` block.
stripped, n = re.subn(r'^extern "C" \{\n.*?^\}\n', "", text, flags=re.S | re.M)
assert "extern \"C\" {" not in stripped, "an extern block was left"
open(sys.argv[2], "w").write(
    "// bindgen output for sqlite3ext.h (SQLite 3.39.4) from sqlite3ext-sys "
    "0.0.1,\n// with its extern \"C\" declarations removed by "
    "scripts/vendor-sqlite3ext-sys.sh.\n\n" + stripped)
print(f"removed {n} extern blocks")
PY
src=$(crate_dir "$tmp" sqlite3ext-sys)
cp "$src/LICENSE-MIT" "$src/LICENSE-APACHE" "$here/vendor/sqlite3ext-sys/"
echo "vendored sqlite3ext-sys $version (bindings only)"
