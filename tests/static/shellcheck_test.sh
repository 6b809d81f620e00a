#!/usr/bin/env bash
# Every shell script of the project is shellcheck-clean.
# Usage: shellcheck_test.sh SOURCE_DIR
set -euo pipefail
cd "$1"
mapfile -t scripts < <(find scripts -maxdepth 1 -type f; find scripts/experiments -type f ! -name '*.*')
shellcheck scripts/lib/*.sh scripts/slurm/*.sbatch .ci/run tests/*/*.sh scripts/experiments/lib.sh \
  "${scripts[@]}"
