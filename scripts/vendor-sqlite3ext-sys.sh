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
mkdir -p "$tmp/src"
cat >"$tmp/Cargo.toml" <<TOML
[package]
name = "fetch-sqlite3ext-sys"
version = "0.0.0"
edition = "2021"
[dependencies]
sqlite3ext-sys = "=$version"
TOML
echo 'pub use sqlite3ext_sys::*;' >"$tmp/src/lib.rs"
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
src=$(cd "$tmp" && cargo metadata --format-version 1 \
  | python3 -c 'import json,sys; m=json.load(sys.stdin); print([p["manifest_path"] for p in m["packages"] if p["name"]=="sqlite3ext-sys"][0])')
cp "$(dirname "$src")/LICENSE-MIT" "$(dirname "$src")/LICENSE-APACHE" "$here/vendor/sqlite3ext-sys/"
echo "vendored sqlite3ext-sys $version (bindings only)"
