# shellcheck shell=bash
# Running a script's measurements in a network namespace of their own (unshare -n): its own
# loopback, its own net.* sysctls and no TIME_WAIT sockets of earlier runs; nothing in it
# reaches the host's network. URINGLOAD_IN_NETNS is set inside.

# Whether this process already runs in such a namespace.
in_netns() { [ -n "${URINGLOAD_IN_NETNS:-}" ]; }

# Replaces this process with CMD... in a new namespace (a script re-running itself there).
exec_in_new_netns() { exec env URINGLOAD_IN_NETNS=1 unshare -n "$@"; }

# Runs CMD... in a new namespace and returns its status (one measurement per namespace).
run_in_new_netns() { env URINGLOAD_IN_NETNS=1 unshare -n "$@"; }

# The same for SOCKETS sockets: when they would be more than 4 a bucket of this namespace's
# table of established connections, the new namespace gets a table of its own with a bucket
# each (net.ipv4.tcp_child_ehash_entries, read when a namespace is made; put back after).
# 1,000,000 loopback connections opened in a median 32.6 s instead of 36.8 (docs/performance.md).
# The same rule as scripts/tune-kernel's line for tcp_child_ehash_entries, which is installed
# alone and so cannot source this file; TuneKernelE2ETest checks that both ask for one size.
run_in_new_netns_for_sockets() {
  local sockets=$1 key=/proc/sys/net/ipv4/tcp_child_ehash_entries buckets want=1 saved
  shift
  buckets=$(tr -d -- '- ' </proc/sys/net/ipv4/tcp_ehash_entries 2>/dev/null || echo 0)
  if [ "$buckets" -eq 0 ] || [ "$sockets" -le $((4 * buckets)) ] || [ ! -w "$key" ]; then
    run_in_new_netns "$@"
    return
  fi
  while [ "$want" -lt "$sockets" ] && [ "$want" -lt 16777216 ]; do want=$((want * 2)); done
  saved=$(cat "$key")
  echo "$want" >"$key"
  trap 'echo "$saved" >"$key"' EXIT
  local status=0
  run_in_new_netns "$@" || status=$?
  echo "$saved" >"$key"
  trap - EXIT
  return $status
}

# Inside: brings loopback up (a new namespace starts with it down).
netns_loopback_up() { ip link set lo up; }
