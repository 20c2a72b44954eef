#!/usr/bin/env bash
# How long a newcomer's commands take and how much room the checkout then
# needs: clones this repository (its committed HEAD) into a fresh folder
# named errkb, runs `make demo`, `make test-fast` and `make test` there in
# that order, and prints a Markdown table of wall times and the checkout's
# size after each (and what of it is target/, dist/, .venv and .cache).
# The crates come from the local Cargo cache, as on a machine that built
# Rust before; the pinned clients from the per-user client cache when
# present. Usage: scripts/measure-setup.sh [WORKDIR] (default: a new
# temporary folder, removed at the end).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-}"
if [ -z "$work" ]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
fi
git clone -q "$repo" "$work/errkb"
cd "$work/errkb"

size() { du -sm "${@:-.}" 2>/dev/null | awk '{s += $1} END {printf "%d MB", s}'; }
rows=()
for target in demo test-fast test; do
    start=$(date +%s)
    make "$target" >"$work/make-$target.log" 2>&1 || { echo "make $target failed: see $work/make-$target.log" >&2; exit 1; }
    took=$(( $(date +%s) - start ))
    rows+=("| \`make $target\` | $((took / 60)) min $((took % 60)) s | $(size) | $(size target) | $(size dist) | $(size .venv) | $(size .cache) |")
done

echo "| command (in this order) | wall time | checkout after | target/ | dist/ | .venv | .cache |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
