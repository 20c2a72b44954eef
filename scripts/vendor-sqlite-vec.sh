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
. "$here/scripts/crate-source.sh"
crate_project "$tmp" sqlite-vec "$version"
(cd "$tmp" && cargo fetch -q)
src=$(crate_dir "$tmp" sqlite-vec)
for f in sqlite-vec.c sqlite-vec.h sqlite3.h sqlite3ext.h; do
  cp "$src/$f" "$here/vendor/sqlite-vec/$f"
done
echo "$version" >"$here/vendor/sqlite-vec/VERSION"
echo "vendored sqlite-vec $version"
