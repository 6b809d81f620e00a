#!/usr/bin/env bash
# scripts/experiment-10m at a small size, zero delay: exact counts in its report, and the plan
# it ran in the report's title. MODE: pipelined (-p 16, default pinning, the report's other
# rows), unpinned (--cpus none), pinned (--cpus 0), http2 (h2c, -p as streams: every
# connection speaks h2).
# Usage: experiment_10m_quick_test.sh SOURCE_DIR URINGLOAD_BINARY MODE
set -uo pipefail
source_dir=$1 binary=$2 mode=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
report=$out/r/report.md
run() { URINGLOAD_BIN=$binary "$source_dir/scripts/experiment-10m" -n 20000 --delay 0 --ports 2 \
  --out "$out/r" "$@" >/dev/null; }
has() { grep -qF -- "$1" "$report" || { echo "report.md lacks: $1" >&2; return 1; }; }
title() { grep -qxF -- "$1" "$report" || { echo "report.md's title is not: $1" >&2; return 1; }; }
case $mode in
  pipelined)
    cpus=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
    run -c 100 -p 16 &&
      has '| completed / ok / errors | 20000 / 20000 / 0 |' &&
      has '| connections peak / ramp to the peak | 100 / ' &&
      has '| CPU per request, server user + kernel | ' &&
      has '| the client limited the run (generator.saturated) | ' &&
      has '| kernel memory per socket at the peak' &&
      has '| established-connection table (tcp_ehash_entries) | ' &&
      title "# uringload: 20000 requests, -c 100, -p 16, delay 0, --cpus $cpus" ;;
  unpinned)
    run -c 100 --cpus none &&
      has '| completed / ok / errors | 20000 / 20000 / 0 |' &&
      title '# uringload: 20000 requests, -c 100, -p 1, delay 0, --cpus not pinned' ;;
  pinned)
    run -c 100 --cpus 0 &&
      has '| completed / ok / errors | 20000 / 20000 / 0 |' &&
      title '# uringload: 20000 requests, -c 100, -p 1, delay 0, --cpus 0' ;;
  http2)
    run -c 10 -p 100 --http2 --cpus 0 &&
      has '| completed / ok / errors | 20000 / 20000 / 0 |' &&
      has '| latency mean / p50 / p99 | ' &&
      title '# uringload: 20000 requests, -c 10, -p 100 HTTP/2 streams, delay 0, --cpus 0' &&
      tr -d ' \n' <"$out/r/result.json" | grep -qF '"protocols":{"http/1.1":0,"h2":10,"h3":0}' ;;
  *) echo "usage: experiment_10m_quick_test.sh SOURCE_DIR BINARY pipelined|unpinned|pinned|http2" >&2
     exit 2 ;;
esac
