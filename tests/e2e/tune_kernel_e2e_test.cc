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

TEST(TuneKernelE2ETest, RejectsBadArguments) {
  std::string script = std::string(URINGLOAD_SOURCE_DIR) + "/scripts/tune-kernel";
  EXPECT_EQ(RunProcess({script, "frobnicate"}).exit_code, 2);
  EXPECT_EQ(RunProcess({script, "check", "--concurrency", "lots"}).exit_code, 2);
}

}  // namespace
}  // namespace uringload::testing
