#include "core/run/preflight.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace uringload::core {
namespace {

RunPlan Plan(uint32_t concurrency, uint32_t threads, int targets, int sources) {
  RunPlan plan;
  plan.concurrency = concurrency;
  plan.threads = threads;
  for (int i = 0; i < targets; ++i) {
    plan.addresses.push_back(*net::Resolve("127.0.0.1", static_cast<uint16_t>(8080 + i)));
  }
  for (int i = 0; i < sources; ++i) {
    plan.sources.push_back(*net::Resolve("127.0.0." + std::to_string(2 + i), 0));
  }
  plan.targets.push_back({.line = 0, .method = "GET", .url = "", .parsed = {}, .spec = {}});
  plan.targets[0].spec.target = "/{i}";
  return plan;
}

MachineLimits Limits() {
  MachineLimits limits;
  limits.descriptor_table = 20000;
  limits.port_range_low = 32768;
  limits.port_range_high = 60999;  // 28,232 ports, as on this machine.
  limits.somaxconn = 4096;
  limits.memory_available = 24ull << 30;
  limits.established_buckets = 262144;  // The host's table on this machine.
  return limits;
}

bool Ok(const std::vector<PreflightCheck>& checks, const std::string& what) {
  for (const PreflightCheck& c : checks) {
    if (c.line.rfind(what, 0) == 0) return c.ok;
  }
  ADD_FAILURE() << "no check " << what;
  return false;
}

std::string Line(const std::vector<PreflightCheck>& checks, const std::string& what) {
  for (const PreflightCheck& c : checks) {
    if (c.line.rfind(what, 0) == 0) return c.line;
  }
  return "";
}

TEST(PreflightTest, SmallRunPassesEverything) {
  for (const PreflightCheck& c : Preflight(Plan(100, 2, 1, 0), Limits())) {
    EXPECT_TRUE(c.ok) << c.line;
  }
}

TEST(PreflightTest, UnreadableSomaxconnIsReportedNotFlagged) {
  MachineLimits limits = Limits();
  limits.somaxconn = 0;  // net::SomaxConn() when /proc/sys cannot be read.
  std::vector<PreflightCheck> checks = Preflight(Plan(5000, 2, 1, 0), limits);
  EXPECT_TRUE(Ok(checks, "listen backlog"));
  EXPECT_NE(Line(checks, "listen backlog").find("unknown"), std::string::npos);
  EXPECT_EQ(Line(checks, "listen backlog").find("fix:"), std::string::npos);
}

TEST(PreflightTest, TablesNeedEnoughThreads) {
  std::vector<PreflightCheck> checks = Preflight(Plan(60000, 2, 4, 0), Limits());
  EXPECT_FALSE(Ok(checks, "descriptor tables"));
  EXPECT_NE(Line(checks, "descriptor tables").find("fix: -t 3 or more"), std::string::npos);
  EXPECT_TRUE(Ok(Preflight(Plan(60000, 3, 4, 0), Limits()), "descriptor tables"));
}

TEST(PreflightTest, PortsPerPairAndTheFix) {
  // 30,000 over one pair: more than half of 28,232 ports.
  std::vector<PreflightCheck> checks = Preflight(Plan(30000, 2, 1, 0), Limits());
  EXPECT_FALSE(Ok(checks, "ports"));
  // 30000 * 2 / 28232 -> 3 pairs needed.
  EXPECT_NE(Line(checks, "ports").find("--source 127.0.0.2-127.0.0.4"), std::string::npos)
      << Line(checks, "ports");
  EXPECT_NE(Line(checks, "ports")
                .find("(3 ports), or uringload-tune-kernel apply "
                      "(ip_local_port_range 1024 65535)"),
            std::string::npos);
  // IPv6 (or a remote IPv4 target): the machine's own addresses, not 127.0.0.0/8. The same
  // ip_local_port_range governs IPv6 ports.
  for (const char* host : {"::1", "198.18.0.2"}) {
    RunPlan remote = Plan(30000, 2, 1, 0);
    remote.addresses[0] = *net::Resolve(host, 8080);
    std::string ports = Line(Preflight(remote, Limits()), "ports");
    EXPECT_NE(ports.find(absl::StrCat("fix: --source with 3 of this machine's ",
                                      host[0] == ':' ? "IPv6" : "IPv4",
                                      " addresses, or a port "
                                      "range in the URL (3 ports)")),
              std::string::npos)
        << ports;
  }
  // 60,000 need 2 pairs even in the widest range.
  EXPECT_NE(Line(Preflight(Plan(60000, 3, 1, 0), Limits()), "ports")
                .find("(ip_local_port_range 1024 65535) with 2 pairs"),
            std::string::npos);
  EXPECT_FALSE(Ok(Preflight(Plan(30000, 2, 2, 0), Limits()), "ports"));  // 15,000 > 14,116.
  EXPECT_TRUE(Ok(Preflight(Plan(30000, 2, 3, 0), Limits()), "ports"));
  EXPECT_TRUE(Ok(Preflight(Plan(60000, 3, 2, 3), Limits()), "ports"));
  MachineLimits wide = Limits();
  wide.port_range_low = 1024;
  wide.port_range_high = 65535;
  EXPECT_TRUE(Ok(Preflight(Plan(30000, 2, 1, 0), wide), "ports"));
  // 40,000 to one tuned port: measured slow (connects past half of the range).
  EXPECT_FALSE(Ok(Preflight(Plan(40000, 2, 1, 0), wide), "ports"));
}

TEST(PreflightTest, TimeWaitSocketsOfEarlierRunsCountAgainstThePorts) {
  MachineLimits limits = Limits();
  limits.time_wait_per_pair = 15000;  // 10,000 + 15,000 > half of 28,232.
  std::vector<PreflightCheck> checks = Preflight(Plan(10000, 1, 1, 0), limits);
  EXPECT_FALSE(Ok(checks, "ports"));
  EXPECT_NE(Line(checks, "ports").find("+ up to 15000 held by TIME_WAIT sockets"),
            std::string::npos)
      << Line(checks, "ports");
  EXPECT_NE(Line(checks, "ports").find("fix: wait up to 60 s"), std::string::npos);
  limits.time_wait_per_pair = 4000;  // 14,000 <= 14,116.
  EXPECT_TRUE(Ok(Preflight(Plan(10000, 1, 1, 0), limits), "ports"));
  // Too many connections even without them: the fix is more pairs.
  limits.time_wait_per_pair = 100;
  EXPECT_NE(Line(Preflight(Plan(30000, 2, 1, 0), limits), "ports").find("fix: --source"),
            std::string::npos);
}

// 1,000,000 loopback connections are 2,000,000 sockets: 7.6 per bucket of the host's table; a
// namespace made with 2^21 buckets holds them at one each. 500,000 (3.8 per bucket) pass.
TEST(PreflightTest, TheConnectionTableHoldsAFewSocketsPerBucket) {
  std::vector<PreflightCheck> checks = Preflight(Plan(1000000, 50, 34, 0), Limits());
  EXPECT_FALSE(Ok(checks, "connection table"));
  std::string line = Line(checks, "connection table");
  EXPECT_NE(line.find("262144 buckets (net.ipv4.tcp_ehash_entries) for this run's 2000000 "
                      "sockets; fix: run in a network namespace made after sysctl -w "
                      "net.ipv4.tcp_child_ehash_entries=2097152"),
            std::string::npos)
      << line;
  EXPECT_TRUE(Ok(Preflight(Plan(500000, 25, 17, 0), Limits()), "connection table"));
  MachineLimits sized = Limits();
  sized.established_buckets = 2097152;
  EXPECT_TRUE(Ok(Preflight(Plan(1000000, 50, 34, 0), sized), "connection table"));
  MachineLimits unknown = Limits();
  unknown.established_buckets = 0;
  EXPECT_TRUE(Ok(Preflight(Plan(1000000, 50, 34, 0), unknown), "connection table"));
  // Capped at the kernel's most.
  line = Line(Preflight(Plan(10000000, 500, 340, 0), Limits()), "connection table");
  EXPECT_NE(line.find("tcp_child_ehash_entries=16777216 "), std::string::npos) << line;
}

TEST(PreflightTest, BacklogAndMemory) {
  RunPlan plan = Plan(60000, 3, 4, 0);
  plan.max_connecting = 2048;
  EXPECT_FALSE(Ok(Preflight(plan, Limits()), "listen backlog"));
  MachineLimits tuned = Limits();
  tuned.somaxconn = 65535;
  EXPECT_TRUE(Ok(Preflight(plan, tuned), "listen backlog"));
  MachineLimits tiny = Limits();
  tiny.memory_available = 1 << 20;
  EXPECT_FALSE(Ok(Preflight(plan, tiny), "memory"));
  // Per connection the estimate stays under 1 KiB plus the request.
  uint64_t per_connection =
      (EstimateMemoryBytes(Plan(100000, 1, 1, 0)) - EstimateMemoryBytes(Plan(0, 1, 1, 0))) / 100000;
  EXPECT_LT(per_connection, 1024u);
  // The kernel's sockets: both ends on loopback, 6 KiB each.
  EXPECT_EQ(EstimateKernelBytes(Plan(100000, 1, 1, 0)), 100000u * 2 * kKernelBytesPerSocket);
  std::string line = Line(Preflight(Plan(100000, 5, 4, 0), Limits()), "memory");
  EXPECT_NE(line.find("(1171.9 MiB of it the kernel's sockets)"), std::string::npos) << line;
}

}  // namespace
}  // namespace uringload::core
