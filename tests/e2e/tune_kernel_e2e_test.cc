// End-to-end: scripts/tune-kernel in a network namespace made by the test: apply -> check
// shows all good -> revert restores every value byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/process.h"

namespace uringload::testing {
namespace {

constexpr char kSnapshot[] =
    "for k in net/ipv4/ip_local_port_range net/ipv4/tcp_tw_reuse net/core/somaxconn "
    "net/ipv4/tcp_max_syn_backlog net/core/netdev_max_backlog net/ipv4/tcp_fin_timeout "
    "fs/file-max fs/nr_open net/ipv4/tcp_mem net/ipv4/tcp_rmem net/ipv4/tcp_wmem "
    "net/netfilter/nf_conntrack_max; do "
    "[ -e /proc/sys/$k ] && { echo \"== $k\"; cat /proc/sys/$k; }; done";

TEST(TuneKernelE2ETest, ApplyCheckRevertInsideANetworkNamespace) {
  std::string script = std::string(URINGLOAD_SOURCE_DIR) + "/scripts/tune-kernel";
  std::string body = "set -e; ip link set lo up; (" + std::string(kSnapshot) +
                     ") > /tmp/tk-before.$$; " + script + " check --concurrency 30000; " + script +
                     " apply --concurrency 30000; echo '--- after apply'; " + script +
                     " check --concurrency 30000; " + script + " revert; (" + kSnapshot +
                     ") > /tmp/tk-after.$$; cmp /tmp/tk-before.$$ /tmp/tk-after.$$ && "
                     "echo BYTE-FOR-BYTE; rm -f /tmp/tk-before.$$ /tmp/tk-after.$$";
  ProcessResult r = RunProcess({"unshare", "-n", "bash", "-c", body}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string before = r.out.substr(0, r.out.find("--- after apply"));
  std::string after = r.out.substr(r.out.find("--- after apply"));
  // A fresh namespace has Linux defaults: something to change (the port range at least).
  EXPECT_NE(before.find("CHANGE net.ipv4.ip_local_port_range"), std::string::npos) << before;
  EXPECT_NE(after.find("tune-kernel: all good for -c 30000"), std::string::npos) << after;
  EXPECT_EQ(after.find("CHANGE"), std::string::npos) << after;
  EXPECT_NE(r.out.find("BYTE-FOR-BYTE"), std::string::npos) << r.out;
}

// A setting that is read-only where the script runs (nf_conntrack_max inside a network
// namespace when the host has connection tracking loaded) is reported, never written: apply
// still succeeds, and revert restores exactly what apply changed. The test points the script
// at a sysctl tree of its own, with that one file bind-mounted read-only in a private mount
// namespace, so it does not depend on what the host has loaded.
TEST(TuneKernelE2ETest, ReadOnlySettingsAreReportedNeverWritten) {
  std::string script = std::string(URINGLOAD_SOURCE_DIR) + "/scripts/tune-kernel";
  std::string body = R"SH(set -e
root=$(mktemp -d); state=$(mktemp -d)
put() { mkdir -p "$root/$(dirname "$1")"; printf '%s\n' "$2" > "$root/$1"; }
put net/ipv4/ip_local_port_range "32768	60999"
put net/ipv4/tcp_tw_reuse 2
put net/core/somaxconn 4096
put net/ipv4/tcp_max_syn_backlog 512
put net/core/netdev_max_backlog 1000
put net/ipv4/tcp_fin_timeout 60
put fs/file-max 9223372036854775807
put fs/nr_open 1048576
put net/ipv4/tcp_mem "94000	125000	188000"
put net/ipv4/tcp_rmem "4096	131072	6291456"
put net/ipv4/tcp_wmem "4096	16384	4194304"
put net/netfilter/nf_conntrack_max 65536
ro=$root/net/netfilter/nf_conntrack_max
mount --bind "$ro" "$ro"; mount -o remount,bind,ro "$ro"
snap() { (cd "$root" && find . -type f | sort | while read -r f; do echo "== $f"; cat "$f"; done); }
snap > "$state/before"
export URINGLOAD_SYSCTL_ROOT=$root URINGLOAD_TUNE_STATE_DIR=$state
)SH" + script + R"SH( apply --concurrency 100000
echo '--- check'
)SH" + script + R"SH( check --concurrency 100000
echo '--- revert'
)SH" + script + R"SH( revert
snap > "$state/after"
cmp "$state/before" "$state/after" && echo BYTE-FOR-BYTE
cat "$ro"
umount "$ro"; rm -rf "$root" "$state"
)SH";
  ProcessResult r = RunProcess({"unshare", "-m", "bash", "-c", body}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string apply = r.out.substr(0, r.out.find("--- check"));
  std::string check = r.out.substr(r.out.find("--- check"));
  EXPECT_NE(apply.find("tune-kernel: net.netfilter.nf_conntrack_max = 65536: host-wide "
                       "(read-only here), set it on the host: "
                       "sysctl -w net.netfilter.nf_conntrack_max='265536'"),
            std::string::npos)
      << apply;
  EXPECT_NE(apply.find("net.core.somaxconn: 4096 -> 65535"), std::string::npos) << apply;
  EXPECT_EQ(apply.find("nf_conntrack_max: 65536 ->"), std::string::npos) << apply;
  EXPECT_NE(check.find("HOST  net.netfilter.nf_conntrack_max"), std::string::npos) << check;
  EXPECT_NE(check.find("all good here for -c 100000; 1 to set on the host"), std::string::npos)
      << check;
  EXPECT_EQ(check.find("CHANGE"), std::string::npos) << check;
  EXPECT_EQ(r.out.find("nf_conntrack_max restored"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("BYTE-FOR-BYTE"), std::string::npos) << r.out << r.err;
}

// More loopback connections than the namespace's table of established connections holds at 4
// sockets a bucket (a million here: 2,000,000 sockets against 262,144 buckets): check asks for
// a table with a bucket per socket for namespaces made from now on, apply sets it, a namespace
// made after has it, revert puts 0 back; experiment-10m's helper makes such a namespace and
// puts the setting back itself, and leaves a run that fits alone. All inside a namespace of
// the test's own, so the host's setting is never touched; sized from the table this machine
// has, so the test does not depend on it.
TEST(TuneKernelE2ETest, ManyConnectionsGetATableOfTheirOwn) {
  std::string script = std::string(URINGLOAD_SOURCE_DIR) + "/scripts/tune-kernel";
  std::string lib = std::string(URINGLOAD_SOURCE_DIR) + "/scripts/lib/netns.sh";
  std::string body =
      R"SH(set -e
k=/proc/sys/net/ipv4
own=$(cat $k/tcp_ehash_entries); b=${own#-}; c=$((4 * b)); want=$((8 * b))
)SH" + script +
      R"SH( check --concurrency $c | grep -F "CHANGE net.ipv4.tcp_child_ehash_entries = 0, recommended >= $want:" && echo asked
)SH" + script +
      R"SH( apply --concurrency $c >/dev/null
[ "$(cat $k/tcp_child_ehash_entries)" = $want ] && echo applied
[ "$(unshare -n cat $k/tcp_ehash_entries)" = $want ] && echo made
)SH" + script +
      R"SH( revert >/dev/null
[ "$(cat $k/tcp_child_ehash_entries)" = 0 ] && echo reverted
source )SH" +
      lib + R"SH(
[ "$(run_in_new_netns_for_sockets $want cat $k/tcp_ehash_entries)" = $want ] && echo helper
[ "$(run_in_new_netns_for_sockets $b cat $k/tcp_ehash_entries)" = "$own" ] && echo fits
[ "$(cat $k/tcp_child_ehash_entries)" = 0 ] && echo put-back
)SH";
  ProcessResult r = RunProcess({"unshare", "-n", "bash", "-c", body}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* step : {"asked", "applied", "made", "reverted", "helper", "fits", "put-back"}) {
    EXPECT_NE(r.out.find(std::string(step) + "\n"), std::string::npos) << step << "\n" << r.out;
  }
}

// A namespace that went away without a revert leaves its saved state behind, and a later
// namespace may get the same inode number: apply must not take that state for its own (it
// once restored tcp_max_syn_backlog to another namespace's 16384). And a setting someone
// changed after apply is left as it is by revert.
TEST(TuneKernelE2ETest, StateLeftByAnEarlierNamespaceIsNotRestored) {
  std::string script = std::string(URINGLOAD_SOURCE_DIR) + "/scripts/tune-kernel";
  std::string body =
      "set -e; ip link set lo up; export URINGLOAD_TUNE_STATE_DIR=$(mktemp -d); "
      "ns=$(readlink /proc/self/ns/net | tr -cd '0-9'); "
      "b64() { printf '%s\\n' \"$1\" | base64 -w0; }; "
      "printf '%s\\t%s\\t%s\\n' net.ipv4.tcp_max_syn_backlog $(b64 16384) "
      "$(b64 65535) > $URINGLOAD_TUNE_STATE_DIR/tune-kernel-netns-$ns.saved; (" +
      std::string(kSnapshot) + ") > /tmp/tk-before.$$; " + script +
      " apply --concurrency 30000 >/dev/null; echo 1000 > "
      "/proc/sys/net/ipv4/tcp_fin_timeout; " +
      script + " revert; echo 60 > /proc/sys/net/ipv4/tcp_fin_timeout; (" + kSnapshot +
      ") > /tmp/tk-after.$$; cmp /tmp/tk-before.$$ /tmp/tk-after.$$ && "
      "echo BYTE-FOR-BYTE; rm -rf /tmp/tk-before.$$ /tmp/tk-after.$$ "
      "$URINGLOAD_TUNE_STATE_DIR";
  ProcessResult r = RunProcess({"unshare", "-n", "bash", "-c", body}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("net.ipv4.tcp_max_syn_backlog restored to"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("restored to 16384"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("net.ipv4.tcp_fin_timeout is 1000, not what apply set: left as it is"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("BYTE-FOR-BYTE"), std::string::npos) << r.out << r.err;
}

TEST(TuneKernelE2ETest, RejectsBadArguments) {
  std::string script = std::string(URINGLOAD_SOURCE_DIR) + "/scripts/tune-kernel";
  EXPECT_EQ(RunProcess({script, "frobnicate"}).exit_code, 2);
  EXPECT_EQ(RunProcess({script, "check", "--concurrency", "lots"}).exit_code, 2);
}

}  // namespace
}  // namespace uringload::testing
