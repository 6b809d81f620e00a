#!/usr/bin/env bash
# charts.py check fails on results whose charts are missing (a runs.csv with no run).
# Usage: check_catches_a_missing_chart_test.sh SOURCE_DIR
set -uo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo 'tool,r,s,status,prefix' >"$out/runs.csv"
! /usr/bin/python3 "$1/scripts/experiments/charts.py" check rate "$out"
