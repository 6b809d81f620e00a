#!/usr/bin/env bash
# scripts/check-includes fails on a tree with a wrong-way include (core including exporters;
# base, in net/base/, including net; core/flow including core/run; a program's file including
# a test double) and passes one where proto includes base and core/run includes core/flow.
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
rm "$root/core/bad.cc"
mkdir -p "$root/core/flow" "$root/core/run"
echo '#include "core/flow/flow_user.h"' >"$root/core/run/good.cc"
"$1/scripts/check-includes" "$root" >/dev/null || { echo "core/run including core/flow failed"; exit 1; }
echo '#include "core/run/worker.h"' >"$root/core/flow/bad.cc"
! "$1/scripts/check-includes" "$root" 2>/dev/null || { echo "core/flow including core/run passed"; exit 1; }
rm "$root/core/flow/bad.cc"
echo '#include "proto/testing/http2_test_server.h"' >"$root/proto/bad.cc"
! "$1/scripts/check-includes" "$root" 2>/dev/null || { echo "a program including a test double passed"; exit 1; }
exit 0
