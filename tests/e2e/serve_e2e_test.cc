// End-to-end: `uringload run` against `uringload serve` on 127.0.0.1: delays, service slots,
// pipelining and HTTP/1.0, 20,000 and 30,000 connections. Timed and holding thousands of
// descriptors: these run alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/raw_client.h"

namespace uringload::testing {
namespace {

TEST(ServeE2ETest, UniformDelayIsHonoured) {
  UringloadServer server({"--delay", "uniform:100ms-300ms"});
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "20000", "-c", "1000", server.Url("/{i}")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 20000u);
  double mean = std::stod(run.json.at("latency_seconds.mean"));
  double min = std::stod(run.json.at("latency_seconds.min"));
  EXPECT_NEAR(mean, 0.200, 0.020);
  EXPECT_GE(min, 0.100);
  FlatJson summary;
  EXPECT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 20000u);
}

// --service-slots K with a fixed delay T: a server of capacity K / T. One slot of 1 ms answers
// at most 1,000 requests a second however many connections wait (without the queue, 300
// requests over 10 connections would take 30 ms), and each request waits behind the
// others': about 10 ms with 10 in flight. Over HTTP/2 likewise, with 2 slots.
TEST(ServeE2ETest, ServiceSlotsMakeAServerOfKnownCapacity) {
  UringloadServer server({"-t", "1", "--service-slots", "1", "--delay", "1ms"});
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "300", "-c", "10", server.Url("/{i}")});
  ExpectAllOk(run, 300);
  EXPECT_GE(std::stod(run.json.at("duration_seconds")), 0.299);
  EXPECT_GE(std::stod(run.json.at("latency_seconds.min")), 0.001);
  EXPECT_GE(std::stod(run.json.at("latency_seconds.mean")), 0.005);
  FlatJson summary;
  EXPECT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 300u);

  UringloadServer h2({"-t", "1", "--http2", "--service-slots", "2", "--delay", "1ms"});
  ASSERT_TRUE(h2.ok());
  RunOutput streams = RunUringload({"--http2", "-n", "300", "-c", "2", "-p", "5", h2.Url("/{i}")});
  ExpectAllOk(streams, 300);
  EXPECT_GE(std::stod(streams.json.at("duration_seconds")), 0.149);
}

TEST(ServeE2ETest, PipelinedRequestsAreAnsweredInOrder) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  RawClient client(server.port());
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(
      client.Send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n"
                  "GET /second HTTP/1.1\r\nHost: x\r\n\r\n"
                  "GET /third?q=1 HTTP/1.1\r\nHost: x\r\n\r\n"));
  std::string expected;
  for (std::string body : {"first", "second", "third"}) {
    expected += "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\nConnection: keep-alive\r\n\r\n" + body;
  }
  EXPECT_EQ(client.ReadExactly(expected.size()), expected);
}

TEST(ServeE2ETest, Http10ClosesUnlessKeepAliveIsAsked) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  RawClient plain(server.port());
  ASSERT_TRUE(plain.Send("GET /old HTTP/1.0\r\n\r\n"));
  EXPECT_EQ(plain.ReadUntilClose(),
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nold");
  RawClient keep(server.port());
  std::string response = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: keep-alive\r\n\r\nk";
  for (int i = 0; i < 2; ++i) {  // The connection stays usable.
    ASSERT_TRUE(keep.Send("GET /k HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    EXPECT_EQ(keep.ReadExactly(response.size()), response);
  }
}

// Two listening ports: one destination port alone makes the kernel's ephemeral port search
// (__inet_hash_connect) slow once ~20,000 of its ~28,000 ports are taken.
TEST(ServeE2ETest, HoldsTwentyThousandConnectionsAtOnce) {
  UringloadServer server({"--delay", "4s"}, 2);
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "20000", "-c", "20000", "-t", "2", server.Url("/{i}")}, 120);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 20000u);
  EXPECT_EQ(JsonCount(run.json, "connections.peak"), 20000u);
  // All 20,000 waited their 4 s together: one wave, not several.
  EXPECT_LT(std::stod(run.json.at("duration_seconds")), 10.0);
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  // The test's own readiness probes are connections too.
  EXPECT_GE(JsonCount(summary, "connections.accepted"), 20000u);
  EXPECT_GE(JsonCount(summary, "connections.peak"), 20000u);
  EXPECT_EQ(JsonCount(summary, "connections.table_full"), 0u);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 20000u);
}

// Above one descriptor table (20,000) and above one source/destination pair's ports (28,232):
// two source addresses times two target ports.
TEST(ServeE2ETest, ThirtyThousandConnectionsFromSeveralSourcesToSeveralPorts) {
  UringloadServer server({"--delay", "100ms"}, 2);
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload(
      {"-n", "150000", "-c", "30000", "--source", "127.0.0.2-127.0.0.3", server.Url("/{i}")}, 180);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "requests.started"), 150000u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 150000u);
  for (const char* failure : {"timeout", "connect_error", "reset", "parse_error", "check_failed"}) {
    EXPECT_EQ(JsonCount(run.json, std::string("outcomes.") + failure), 0u) << failure;
  }
  EXPECT_EQ(JsonCount(run.json, "connections.opened"), 30000u);
  EXPECT_GE(JsonCount(run.json, "threads"), 2u);  // 30,000 do not fit one ring's table.
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 150000u);
}

}  // namespace
}  // namespace uringload::testing
