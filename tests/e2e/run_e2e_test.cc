// End-to-end: the real `uringload run` against a real nginx, `uringload serve` and hostile
// listeners on 127.0.0.1, asserting exact outcome counts from the JSON result.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/nginx.h"
#include "tests/support/ports.h"

namespace uringload::testing {
namespace {

class KeepAliveCounts : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(KeepAliveCounts, ExactlyNRequestsAllOk) {
  auto [concurrency, threads] = GetParam();
  NginxServer nginx;
  ASSERT_TRUE(nginx.ok());
  constexpr uint64_t kN = 100'000;
  RunOutput run = RunUringload({"-n", std::to_string(kN), "-c", std::to_string(concurrency), "-t",
                                std::to_string(threads), nginx.Url("/item/{i}")});
  ExpectAllOk(run, kN);
  EXPECT_EQ(JsonCount(run.json, "connections.opened"), static_cast<uint64_t>(concurrency));
  EXPECT_EQ(JsonCount(run.json, "threads"), static_cast<uint64_t>(std::min(concurrency, threads)));
  // Every response carries the body; the byte count proves each was read whole.
  EXPECT_GT(JsonCount(run.json, "bytes.received"), kN * 16);
}

INSTANTIATE_TEST_SUITE_P(Matrix, KeepAliveCounts,
                         ::testing::Combine(::testing::Values(1, 10, 1000),
                                            ::testing::Values(1, 2)),
                         [](const ::testing::TestParamInfo<std::tuple<int, int>>& info) {
                           return "c" + std::to_string(std::get<0>(info.param)) + "_t" +
                                  std::to_string(std::get<1>(info.param));
                         });

TEST(RunE2ETest, NoKeepAliveOpensAConnectionPerRequest) {
  NginxServer nginx;
  ASSERT_TRUE(nginx.ok());
  RunOutput run = RunUringload({"-n", "20000", "-c", "50", "--no-keepalive", nginx.Url("/")});
  ExpectAllOk(run, 20000);
  EXPECT_EQ(JsonCount(run.json, "connections.opened"), 20000u);
}

TEST(RunE2ETest, ServerClosingEveryKthConnectionIsReopenedWithoutErrors) {
  NginxServer nginx({.keepalive_requests = 7});
  ASSERT_TRUE(nginx.ok());
  RunOutput run = RunUringload({"-n", "30000", "-c", "20", nginx.Url("/{i}")});
  ExpectAllOk(run, 30000);
  // nginx says "Connection: close" on every 7th response of a connection.
  EXPECT_GE(JsonCount(run.json, "connections.opened"), 30000u / 7);
}

TEST(RunE2ETest, ClosedPortGivesOnlyConnectErrors) {
  uint16_t port = FreePort();
  RunOutput run =
      RunUringload({"-n", "2000", "-c", "10", "http://127.0.0.1:" + std::to_string(port) + "/"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "requests.started"), 2000u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.connect_error"), 2000u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 0u);
  EXPECT_EQ(JsonCount(run.json, "connections.opened"), 0u);
  EXPECT_EQ(run.json.at("errors.0.message"), "Connection refused");
}

TEST(RunE2ETest, ServerThatNeverAnswersGivesOnlyTimeouts) {
  SilentListener silent;
  RunOutput run = RunUringload({"-n", "60", "-c", "20", "--timeout", "200ms",
                                "http://127.0.0.1:" + std::to_string(silent.port()) + "/"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "requests.completed"), 60u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.timeout"), 60u);
  // Three waves of 200 ms: the timeouts fired on time, not at the 30 s default.
  std::string duration = run.json.at("duration_seconds");
  EXPECT_GT(std::stod(duration), 0.55);
  EXPECT_LT(std::stod(duration), 2.0);
}

TEST(RunE2ETest, DurationRunAccountsForEveryStartedRequest) {
  UringloadServer server({"--delay", "20ms"});
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-d", "1s", "-c", "64", server.Url("/")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  uint64_t started = JsonCount(run.json, "requests.started");
  EXPECT_GT(started, 1000u);  // ~64 / 20 ms = 3,200 per second.
  EXPECT_EQ(run.json.at("requests.planned"), "null");
  EXPECT_EQ(JsonCount(run.json, "requests.completed"), started);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), started);
  double duration = std::stod(run.json.at("duration_seconds"));
  EXPECT_GE(duration, 1.0);
  EXPECT_LT(duration, 3.0);
}

TEST(RunE2ETest, Ipv6LiteralAndHostName) {
  NginxServer nginx6({.ipv6 = true});
  ASSERT_TRUE(nginx6.ok());
  ExpectAllOk(RunUringload({"-n", "2000", "-c", "10", nginx6.Url("/{i}")}), 2000);
  NginxServer nginx;
  ASSERT_TRUE(nginx.ok());
  ExpectAllOk(RunUringload({"-n", "2000", "-c", "10",
                            "http://localhost:" + std::to_string(nginx.port()) + "/"}),
              2000);
}

TEST(RunE2ETest, DurationAndCountTogetherEndAtTheCount) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "500", "-d", "60s", "-c", "8", server.Url("/")});
  ExpectAllOk(run, 500);
}

}  // namespace
}  // namespace uringload::testing
