// End-to-end: pipelining (-p) against `uringload serve` and nginx, and a --targets file, each
// with exact counts.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/nginx.h"

namespace uringload::testing {
namespace {

TEST(PipelineE2ETest, SixteenDeepAgainstServeAndNginxWithTheSameBytesAsOne) {
  UringloadServer server;
  NginxServer nginx;
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(nginx.ok());
  for (const std::string& url : {server.Url("/{i}"), nginx.Url("/{i}")}) {
    RunOutput deep = RunUringload({"-n", "50000", "-c", "20", "-p", "16", url});
    RunOutput single = RunUringload({"-n", "50000", "-c", "20", url});
    ExpectAllOk(deep, 50000);
    ExpectAllOk(single, 50000);
    EXPECT_EQ(JsonCount(deep.json, "bytes.received"), JsonCount(single.json, "bytes.received"));
    EXPECT_EQ(JsonCount(deep.json, "bytes.sent"), JsonCount(single.json, "bytes.sent"));
  }
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 100000u);
  EXPECT_EQ(JsonCount(summary, "connections.pipeline_overflow"), 0u);
}

// nginx closes a connection after keepalive_requests; the requests pipelined behind the last
// answer go again on a new connection, not counted twice and not lost, and each is counted
// in requests.retried (at most 7 behind each of the connections nginx closed).
TEST(PipelineE2ETest, RequestsBehindAServerCloseAreSentAgain) {
  NginxServer nginx({.keepalive_requests = 100});
  ASSERT_TRUE(nginx.ok());
  RunOutput run = RunUringload({"-n", "20000", "-c", "10", "-p", "8", nginx.Url("/{i}")});
  ExpectAllOk(run, 20000);
  uint64_t retried = JsonCount(run.json, "requests.retried");
  EXPECT_GT(retried, 0u);
  EXPECT_LE(retried, 7 * JsonCount(run.json, "connections.opened"));
}

TEST(PipelineE2ETest, ResetsAccountForEveryRequestInFlight) {
  UringloadServer server({"--fault-reset", "0.01"});
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "20000", "-c", "10", "-p", "8", server.Url("/")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "requests.started"), 20000u);
  EXPECT_EQ(JsonCount(run.json, "requests.completed"), 20000u);
  EXPECT_GT(JsonCount(run.json, "outcomes.reset"), 0u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok") + JsonCount(run.json, "outcomes.reset") +
                JsonCount(run.json, "outcomes.parse_error"),
            20000u);
}

TEST(TargetsE2ETest, PerTargetCountsAreExact) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  std::string dir = ::testing::TempDir();
  std::ofstream(dir + "/body.txt") << "hello";
  std::ofstream(dir + "/targets.txt") << "# three requests\n"
                                      << "GET " << server.Url("/a/{i}") << "\n"
                                      << "POST " << server.Url("/b/{i}") << " @body.txt\n"
                                      << "HEAD " << server.Url("/c") << "\n";
  RunOutput run = RunUringload({"-n", "3000", "-c", "30", "--targets", dir + "/targets.txt"});
  ExpectAllOk(run, 3000);
  for (int t = 0; t < 3; ++t) {
    std::string at = "targets." + std::to_string(t);
    EXPECT_EQ(JsonCount(run.json, at + ".requests"), 1000u) << t;
    EXPECT_EQ(JsonCount(run.json, at + ".ok"), 1000u) << t;
  }
  EXPECT_EQ(run.json.at("targets.1.method"), "POST");
  RunOutput random = RunUringload({"-n", "3000", "--targets", dir + "/targets.txt",
                                   "--targets-order", "random", "--seed", "7"});
  RunOutput again = RunUringload({"-n", "3000", "--targets", dir + "/targets.txt",
                                  "--targets-order", "random", "--seed", "7"});
  ExpectAllOk(random, 3000);
  for (int t = 0; t < 3; ++t) {
    std::string at = "targets." + std::to_string(t) + ".requests";
    EXPECT_GT(JsonCount(random.json, at), 800u);
    EXPECT_EQ(JsonCount(random.json, at), JsonCount(again.json, at));
  }
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 9000u);
}

}  // namespace
}  // namespace uringload::testing
