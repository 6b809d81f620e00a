# shellcheck shell=bash
# Shell helpers for loopback ports (sourced by scripts; no python needed).

# Prints a TCP port on 127.0.0.1 that nothing listens on right now, chosen below the
# ephemeral range so no client connection of this machine can be holding it.
free_port() {
  local port low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range
  for _ in $(seq 200); do
    port=$(shuf -i 10000-$((low - 1)) -n 1)
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  echo "no free port found" >&2
  return 1
}

# Waits up to 10 s until 127.0.0.1:$1 accepts connections.
wait_for_port() {
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing listens on 127.0.0.1:$1" >&2
  return 1
}

# Succeeds when process $1 itself listens on 127.0.0.1:$2 (so a test never talks to a server
# someone else left on that port). ss's output is read whole: `grep -q` would stop reading at
# the first match, and under pipefail the SIGPIPE ss then gets (dozens of SO_REUSEPORT
# listeners on the port) turned a match into a failure.
port_owned_by() {
  local listeners
  listeners=$(ss -Htlnp "sport = :$2" 2>/dev/null)
  [[ $listeners == *"pid=$1,"* ]]
}

# Starts CMD... in the background with its stderr appended to LOG (- keeps it), waits until it
# listens on 127.0.0.1:PORT and checks that the listener is that process's own; sets
# started_pid. A port someone else holds fails (the process is stopped), so a script never
# measures against a stranger's server. Usage: start_listening PORT LOG CMD...
start_listening() {
  local port=$1 log=$2
  shift 2
  if [ "$log" = - ]; then "$@" & else "$@" 2>>"$log" & fi
  started_pid=$!
  if ! wait_for_port "$port" || ! port_owned_by "$started_pid" "$port"; then
    echo "127.0.0.1:$port is not held by $1 (pid $started_pid)" >&2
    kill "$started_pid" 2>/dev/null || true
    return 1
  fi
}
