# Sourced by the vendoring scripts: a throwaway Cargo project that depends
# on one crate of crates.io, and where cargo unpacked that crate's source.
#   crate_project DIR NAME VERSION   write the project into DIR
#   crate_dir DIR NAME               print the crate's source folder (after a fetch or build in DIR)

crate_project() {
  local dir=$1 name=$2 version=$3
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<TOML
[package]
name = "fetch-$name"
version = "0.0.0"
edition = "2021"
[dependencies]
$name = "=$version"
TOML
  touch "$dir/src/lib.rs"
}

crate_dir() {
  (cd "$1" && cargo metadata --format-version 1) | python3 -c '
import json, os, sys
packages = json.load(sys.stdin)["packages"]
print(os.path.dirname(next(p["manifest_path"] for p in packages if p["name"] == sys.argv[1])))' "$2"
}
