# shellcheck shell=bash
# Shared by the experiment scripts (sourced after `cd` to the repository root): their options,
# the private network namespace each runs in, the servers, and measuring one client run.
#
# Every experiment takes:
#   --quick      a small size that finishes in under 2 minutes (CI runs it)
#   --out DIR    where raw results, results.csv, the charts and table.md go
#                (default results/experiments/<name>/<UTC time>)
#   --docs       also copy the charts and table.md to docs/ (the README shows those)
# Environment: URINGLOAD_BIN (default build/cli/uringload; when set, scripts/setup is not run).

# shellcheck source=scripts/lib/netns.sh
source scripts/lib/netns.sh

quick=0 docs=0 out=""

# experiment_init NAME "$@": parses the options above, then re-runs the script in a new network
# namespace (its own loopback and net.* sysctls: nothing it does reaches the host's network or
# inherits the host's TIME_WAIT sockets) and sets bin, python, out, manifest and port (the
# first of four free ports).
experiment_init() {
  local name=$1
  shift
  local args=("$@")
  while [ $# -gt 0 ]; do
    case $1 in
      --quick) quick=1; shift ;;
      --docs) docs=1; shift ;;
      --out) out=${2:?--out needs a folder}; shift 2 ;;
      *) echo "$name: unknown argument '$1' (options: --quick, --out DIR, --docs)" >&2; exit 2 ;;
    esac
  done
  if ! in_netns; then
    [ -n "${URINGLOAD_BIN:-}" ] || scripts/setup >/dev/null
    exec_in_new_netns "$0" "${args[@]}"
  fi
  netns_loopback_up
  # tune-kernel's saved state belongs to this namespace, which goes when the experiment ends:
  # kept apart and removed then, never found by a later namespace with the same inode number.
  URINGLOAD_TUNE_STATE_DIR=$(mktemp -d /tmp/uringload-tune-state-XXXXXX)
  export URINGLOAD_TUNE_STATE_DIR
  bin=$(realpath "${URINGLOAD_BIN:-build/cli/uringload}")
  python=/usr/bin/python3  # Debian's, with python3-aiohttp and python3-matplotlib.
  [ -n "$out" ] || out="results/experiments/$name/$(date -u +%Y%m%dT%H%M%SZ)"
  mkdir -p "$out/raw"
  manifest="$out/runs.csv"
  echo "tool,r,s,status,prefix" >"$manifest"
  # shellcheck source=scripts/lib/ports.sh
  source scripts/lib/ports.sh
  # shellcheck source=scripts/lib/nginx.sh
  source scripts/lib/nginx.sh
  # Four free ports for servers, reserved so that no client connection takes one, even after
  # tune-kernel apply widens the ephemeral range over them.
  port=$(free_port)
  echo "$port-$((port + 3))" >/proc/sys/net/ipv4/ip_local_reserved_ports
  servers=()
  trap 'stop_servers; rm -rf "$URINGLOAD_TUNE_STATE_DIR"' EXIT
  echo "$name: $([ $quick -eq 1 ] && echo quick || echo full) size, results in $out"
}

# start_serve PORT|FIRST-LAST [serve flags...]: `uringload serve` on 127.0.0.1 at that port
# (range); sets server_pid.
start_serve() {
  local ports=$1 port=${1%%-*}
  shift
  start_listening "$port" "$out/raw/server.log" "$bin" serve --listen "127.0.0.1:$ports" --quiet \
    "$@" || exit 1
  server_pid=$started_pid
  servers+=("$server_pid")
}

# start_nginx PORT BODY [PREFIX]: nginx (1 worker, Debian's) answering BODY, started through
# PREFIX (e.g. "taskset -c 1"); sets server_pid.
start_nginx() {
  local work
  work=$(mktemp -d)
  write_nginx_conf "$work" "$1" "" "$2"
  # shellcheck disable=SC2086  # PREFIX is words.
  start_listening "$1" "$out/raw/server.log" ${3:-} /usr/sbin/nginx -e stderr -p "$work" \
    -c "$work/nginx.conf" || exit 1
  server_pid=$started_pid
  servers+=("$server_pid")
}

stop_servers() {
  local pid
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
}

stop_server() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# measure TOOL R S CAP_SECONDS command...: runs the command (at most CAP seconds) with its
# stdout in raw/<prefix>.out (prefix: TOOL-rR-sS, then $round_tag when set), stderr in .err and "peak_rss_kb wall_s user_s sys_s" in .time, and
# records it in runs.csv as ran, or timeout when the cap stopped it.
measure() {
  local tool=$1 r=$2 s=$3 cap=$4
  shift 4
  local prefix="raw/$tool-r$r-s$s${round_tag:-}" status=ran
  echo "  $tool r=$r s=$s"
  /usr/bin/time -o "$out/$prefix.time" -f '%M %e %U %S' timeout "$cap" "$@" \
    >"$out/$prefix.out" 2>"$out/$prefix.err" || status=failed
  if [ $status = failed ] && grep -q "status 124" "$out/$prefix.time"; then status=timeout; fi
  sed -i '/^Command/d' "$out/$prefix.time"
  echo "$tool,$r,$s,$status,$prefix" >>"$manifest"
}

# skip TOOL R S: records a point not run (predicted to exceed the time cap).
skip() { echo "$1,$2,$3,skipped," >>"$manifest"; }

# experiment_finish NAME: results.csv, charts and table.md from the raw results; prints the
# table; with --docs copies the charts and the table (as experiment-NAME.md) to docs/.
experiment_finish() {
  "$python" scripts/experiments/charts.py "$1" "$out" | tee "$out/table.md"
  if [ $docs -eq 1 ]; then
    cp "$out"/*.png docs/
    { echo "# \`scripts/experiments/$1\`, $(date -u +%Y-%m-%d) ($(nproc) CPUs, Linux $(uname -r))"
      echo
      cat "$out/table.md"; } >"docs/experiment-$1.md"
  fi
  echo "$1: results in $out"
}
