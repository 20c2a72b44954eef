#!/usr/bin/env bash
# Refresh vendor/sqlite-vec from the sqlite-vec crate package on crates.io.
#
# Why vendored: the `sqlite-vec` crate compiles its C source with SQLITE_CORE,
# which binds it to a private SQLite copy; inside a loadable extension it must
# instead go through the host's API pointer. build.rs compiles these files
# without SQLITE_CORE. Usage: scripts/vendor-sqlite-vec.sh 0.1.9
set -euo pipefail
version=${1:?usage: $0 VERSION}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
cat >"$tmp/Cargo.toml" <<TOML
[package]
name = "fetch-sqlite-vec"
version = "0.0.0"
edition = "2021"
[dependencies]
sqlite-vec = "=$version"
TOML
touch "$tmp/src/lib.rs"
src=$(cd "$tmp" && cargo fetch -q && cargo metadata --format-version 1 \
  | python3 -c 'import json,sys; m=json.load(sys.stdin); print([p["manifest_path"] for p in m["packages"] if p["name"]=="sqlite-vec"][0])')
src=$(dirname "$src")
for f in sqlite-vec.c sqlite-vec.h sqlite3.h sqlite3ext.h; do
  cp "$src/$f" "$here/vendor/sqlite-vec/$f"
done
echo "$version" >"$here/vendor/sqlite-vec/VERSION"
echo "vendored sqlite-vec $version"
