#!/usr/bin/env bash
# check_docs.py fails on a broken link, a missing heading, words about how the project was
# built, a flag of --help missing from the docs and an over-long line, and says which.
# Usage: check_docs_catches_bad_docs.sh SOURCE_DIR URINGLOAD_BINARY
set -uo pipefail
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/docs" "$root/cli"
printf '# x\n[gone](docs/gone.md) [here](#nowhere)\nAs measured in session 7 for issue 16.\n%0120d\n' 0 \
  >"$root/README.md"
out=$(/usr/bin/python3 "$1/tests/docs/check_docs.py" "$root" "$2")
status=$?
echo "$out"
[ $status -eq 1 ] &&
  grep -q 'missing file: docs/gone.md' <<<"$out" &&
  grep -q 'missing heading: #nowhere' <<<"$out" &&
  grep -q "'session 7'" <<<"$out" &&
  grep -q "'issue 16'" <<<"$out" &&
  grep -q 'run --requests: not in README.md or docs/' <<<"$out" &&
  grep -q 'README.md:4: 120 characters' <<<"$out"
