// End-to-end: `uringload run --preflight` in a network namespace made by the test, with a
// small ephemeral port range: a fresh namespace passes; after a run has left its TIME_WAIT
// sockets towards the target, the ports check counts them and fails with the fix.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/process.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

// Over IPv4 and IPv6 alike: net.ipv4.ip_local_port_range governs both, and the TIME_WAIT
// sockets of /proc/net/tcp6 count like those of /proc/net/tcp.
TEST(PreflightE2ETest, TimeWaitSocketsOfAnEarlierRunCountAgainstThePorts) {
  for (std::string host : {"127.0.0.1", "[::1]"}) {
    std::string bin = UringloadBinary();
    // 1,000 ephemeral ports: half is 500. A run of 600 connections leaves 600 TIME_WAIT sockets
    // (the client closes first); another 200 connections to the same target then need 800.
    // The wait for the listener looks with ss: a probing connect would leave a TIME_WAIT too.
    std::string body =
        "set -e; ip link set lo up; sysctl -qw net.ipv4.ip_local_port_range='40000 40999'; " + bin +
        " serve -t 1 --quiet --listen " + host + ":8080 & server=$!; trap 'kill $server' EXIT; " +
        "for i in $(seq 100); do ss -Hltn 'sport = :8080' | grep -q . && break; sleep 0.05; done; "
        "echo '--- before'; " +
        bin + " run --preflight -c 200 http://" + host + ":8080/ || echo exit=$?; " + bin +
        " run -q -n 600 -c 600 -t 1 http://" + host + ":8080/ 2>/dev/null; echo '--- after'; " +
        bin + " run --preflight -c 200 http://" + host +
        ":8080/ || echo exit=$?; echo '--- other port'; " + bin +
        " run --preflight -c 200 http://" + host + ":8081/ || echo exit=$?";
    ProcessResult r = RunProcess({"unshare", "-n", "bash", "-c", body}, 60);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::string before = r.out.substr(0, r.out.find("--- after"));
    std::string after = r.out.substr(r.out.find("--- after"),
                                     r.out.find("--- other port") - r.out.find("--- after"));
    std::string other = r.out.substr(r.out.find("--- other port"));
    EXPECT_NE(before.find("ok       ports: 200 connections over 1 source/destination pairs = 200 "
                          "per pair; net.ipv4.ip_local_port_range gives 1000"),
              std::string::npos)
        << host << before;
    EXPECT_EQ(before.find("exit="), std::string::npos) << host << before;
    EXPECT_NE(after.find("PROBLEM  ports: 200 connections over 1 source/destination pairs = 200 "
                         "per pair + up to 600 held by TIME_WAIT sockets of earlier runs"),
              std::string::npos)
        << host << after;
    EXPECT_NE(after.find("fix: wait up to 60 s"), std::string::npos) << host << after;
    EXPECT_NE(after.find("exit=1"), std::string::npos) << host << after;
    // Those sockets hold ports towards HOST:8080 only.
    EXPECT_NE(other.find("ok       ports: 200 connections"), std::string::npos) << host << other;
  }
}

}  // namespace
}  // namespace uringload::testing
