#!/usr/bin/env bash
# scripts/check-includes fails on a tree with a wrong-way include (core including exporters;
# base, in net/base/, including net) and passes one where proto includes base.
# Usage: check_includes_catches_test.sh SOURCE_DIR
set -uo pipefail
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/core" "$root/net/base" "$root/proto"
echo '#include "net/base/check.h"' >"$root/proto/good.cc"
"$1/scripts/check-includes" "$root" >/dev/null || { echo "proto including base failed"; exit 1; }
echo '#include "net/ring.h"' >"$root/net/base/bad.cc"
! "$1/scripts/check-includes" "$root" 2>/dev/null || { echo "base including net passed"; exit 1; }
rm "$root/net/base/bad.cc"
echo '#include "exporters/run_report.h"' >"$root/core/bad.cc"
! "$1/scripts/check-includes" "$root" 2>/dev/null || { echo "core including exporters passed"; exit 1; }
