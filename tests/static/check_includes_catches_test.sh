#!/usr/bin/env bash
# scripts/check-includes fails on a tree with a wrong-way include (core including exporters).
# Usage: check_includes_catches_test.sh SOURCE_DIR
set -uo pipefail
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/core"
echo '#include "exporters/run_report.h"' >"$root/core/bad.cc"
! "$1/scripts/check-includes" "$root"
