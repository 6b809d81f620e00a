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

# Inside: brings loopback up (a new namespace starts with it down).
netns_loopback_up() { ip link set lo up; }
