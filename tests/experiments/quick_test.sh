#!/usr/bin/env bash
# One experiment at its --quick size, in its own network namespace (needs root, like the
# scripts): its results parse and its charts are PNGs of the expected size (charts.py check).
# Usage: quick_test.sh SOURCE_DIR URINGLOAD_BINARY EXPERIMENT
set -uo pipefail
source_dir=$1 binary=$2 experiment=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
URINGLOAD_BIN=$binary "$source_dir/scripts/experiments/$experiment" --quick --out "$out/r" &&
  /usr/bin/python3 "$source_dir/scripts/experiments/charts.py" check "$experiment" "$out/r"
