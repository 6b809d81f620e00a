#!/usr/bin/env bash
# uringload on a real Slurm cluster, started by this test: munged, slurmctld and four slurmd
# (nodes n1..n4 on this host, each its own port on 127.0.0.1) from Debian 12's packages, with
# everything (config, state, spool, logs, pids, munge key) in a temporary directory. Submits
# scripts/slurm/uringload.sbatch with `sbatch --wait --nodes=4` against an nginx and a
# Pushgateway started here, then checks: the merged counts, nginx's count and the
# Pushgateway's summed counter all equal N; nginx saw every index 0..N-1 exactly once; the
# shards started within 100 ms of each other, each with its connections already open
# (--preconnect); the merged histogram holds N. Every process is
# stopped by PID. Needs root (skipped, exit 77, otherwise).
#   tests/slurm/slurm_e2e_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1 build_dir=$2
# shellcheck source=/dev/null
source "$source_dir/scripts/lib/ports.sh"
# shellcheck source=/dev/null
source "$source_dir/scripts/lib/json.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: the Slurm test needs root (munged as user munge, slurmd as root)"
  exit 77
fi
binary="$build_dir/cli/uringload"
requests=400000
nodes=4

dir=$(mktemp -d /tmp/uringload-slurm-XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
  for pidfile in "$dir"/slurmd-*.pid "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$pidfile" ] && pids+=("$(cat "$pidfile")")
  done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  sleep 0.5
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

# Waits up to $2 seconds (in 0.1 s steps) for the command "${@:3}" to succeed; $1 names it.
wait_until() {
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq $((seconds * 10))); do
    "$@" && return 0
    sleep 0.1
  done
  fail "timed out after ${seconds}s waiting for $what"
}

# munge: a fresh key, the daemon as user munge, its socket here.
mkdir -p "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$dir/munge"
chmod 711 "$dir/munge"
chmod 400 "$dir/munge/munge.key"
runuser -u munge -- munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
  --seed-file="$dir/munge/munged.seed"
wait_until munged 10 test -S "$dir/munge/munge.sock"

# Slurm: a controller and $nodes slurmd, each on its own free port.
ctld_port=$(free_port)
node_lines=""
for n in $(seq "$nodes"); do
  node_lines+="NodeName=n$n NodeAddr=127.0.0.1 NodeHostname=$(hostname) Port=$(free_port) CPUs=2 State=UNKNOWN"$'\n'
done
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=uringloadtest
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$ctld_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
${node_lines}PartitionName=test Nodes=n[1-$nodes] Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
for n in $(seq "$nodes"); do slurmd -f "$SLURM_CONF" -N "n$n"; done
idle_nodes() { [ "$(sinfo -h -t idle -o %D 2>/dev/null)" = "$nodes" ]; }
wait_until "$nodes idle Slurm nodes" 30 idle_nodes

# The target (nginx, logging every request's path) and a Pushgateway, each holding its port.
nginx_port=$(free_port)
mkdir -p "$dir/nginx"
cat >"$dir/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
master_process off;
error_log stderr error;
pid $dir/nginx/nginx.pid;
worker_rlimit_nofile 20000;
events { worker_connections 4096; }
http {
  log_format path "\$request_uri";
  access_log $dir/nginx/access.log path;
  client_body_temp_path $dir/nginx; proxy_temp_path $dir/nginx; fastcgi_temp_path $dir/nginx;
  uwsgi_temp_path $dir/nginx; scgi_temp_path $dir/nginx;
  keepalive_requests 100000000;
  server {
    listen 127.0.0.1:$nginx_port;
    location / { default_type text/plain; return 200 "slurm"; }
  }
}
CONF
/usr/sbin/nginx -e stderr -p "$dir/nginx" -c "$dir/nginx/nginx.conf" &
pids+=($!)
wait_until "nginx on port $nginx_port" 10 port_owned_by "${pids[-1]}" "$nginx_port"
gateway_port=$(free_port)
/usr/bin/prometheus-pushgateway --web.listen-address="127.0.0.1:$gateway_port" \
  --persistence.file= --log.level=error &
pids+=($!)
wait_until "the Pushgateway on port $gateway_port" 30 port_owned_by "${pids[-1]}" "$gateway_port"

# The job: 4 shards of -n $requests, merged.
out="$dir/results"
job_log="$dir/job.out"
URINGLOAD="$binary" URINGLOAD_START_IN=5 URINGLOAD_PUSHGATEWAY="http://127.0.0.1:$gateway_port" \
  timeout 300 sbatch --wait --nodes="$nodes" --output="$job_log" \
  "$source_dir/scripts/slurm/uringload.sbatch" "$out" -n "$requests" -c 400 -t 1 --preconnect \
  "http://127.0.0.1:$nginx_port/{i}" >"$dir/sbatch.out" ||
  fail "the job failed: $(cat "$job_log" 2>/dev/null)"

merged="$out/merged.json"
[ -f "$merged" ] || fail "no merged result; the job said: $(cat "$job_log")"
for key in requests.planned requests.started requests.completed outcomes.ok; do
  [ "$(json_get "$merged" "$key")" = "$requests" ] || fail "merged $key is not $requests"
done
[ "$(json_get "$merged" merged_shards)" = "$nodes" ] || fail "not $nodes shards merged"
histogram_count=$(json_get "$merged" latency_histogram.count)
[ "$histogram_count" = "$requests" ] || fail "the merged histogram holds $histogram_count"
# The merged histogram is the bucket-by-bucket sum of the shards' (its quantiles come from it,
# exactly as one process's would: exporters/run_merge_test.cc).
node -e '
  const fs = require("fs");
  const [merged, ...shards] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f)));
  const sum = new Map();
  for (const s of shards) for (const [i, c] of s.latency_histogram.buckets) sum.set(i, (sum.get(i) || 0) + c);
  const got = new Map(merged.latency_histogram.buckets);
  let same = got.size === sum.size;
  for (const [i, c] of sum) same = same && got.get(i) === c;
  process.exit(same ? 0 : 1);' "$merged" "$out"/shard-*.json ||
  fail "the merged histogram is not the sum of the shards' buckets"
[ "$(wc -l <"$dir/nginx/access.log")" = "$requests" ] || fail "nginx did not log $requests"
sort -u "$dir/nginx/access.log" | awk -v n="$requests" '
  { seen[substr($0, 2)] = 1; count++ }
  END { for (i = 0; i < n; i++) if (!((i "") in seen)) { print "missing /" i; exit 1 }
        if (count != n) { print count " distinct paths"; exit 1 } }' ||
  fail "nginx did not see every index 0..$((requests - 1)) exactly once"
run_id=$(grep -m1 '"run_id"' "$merged" | sed 's/.*: *"//; s/".*//')
pushed=$(curl -s "http://127.0.0.1:$gateway_port/metrics" | awk -v id="$run_id" '
  /^uringload_requests_completed_total\{/ && index($0, "run_id=\"" id "\"") && /outcome="ok"/ {
    sum += $NF }
  END { printf "%d", sum }')
[ "$pushed" = "$requests" ] || fail "the Pushgateway's ok counters sum to $pushed, not $requests"
for shard in "$out"/shard-*.json; do
  skew=$(json_get "$shard" start_skew_seconds)
  awk -v s="$skew" 'BEGIN { exit !(s >= 0 && s < 0.1) }' || fail "$shard started $skew s late"
  preconnected=$(json_get "$shard" connections.preconnected)
  [ "$preconnected" = $((400 / nodes)) ] || fail "$shard had $preconnected connections open at the start"
done
echo "slurm test: ok ($nodes nodes, $requests requests, run $run_id)"
