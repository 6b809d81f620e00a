// End-to-end `serve --http3`: the real `uringload run --http3` against it, and ngtcp2's own
// client (gtlsclient) as a peer nobody here wrote: exact counts on both sides, its delays,
// request bodies of many packets, counters that follow the warmup, shards merged with
// thresholds and a timeline; bad input, and a UDP port someone else holds. Faults, resends and
// 0-RTT: serve_http3_faults_e2e_test.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/e2e/serve_http3.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

TEST(ServeHttp3E2ETest, EveryRequestIsAnsweredOnceAfterItsDelay) {
  ASSERT_TRUE(SharedCert().ok());
  UringloadServer server(Http3Serve({"--delay", "uniform:2ms-10ms"}));
  ASSERT_TRUE(server.ok());
  RunOutput run = RunHttp3(server, {"-n", "5000", "-c", "4", "-p", "8"});
  ExpectAllOk(run, 5000);
  EXPECT_EQ(JsonCount(run.json, "connections.protocols.h3"), 4u);
  EXPECT_EQ(JsonCount(run.json, "tls.handshakes"), 4u);
  // The server's delays show in the client's latency.
  EXPECT_GE(JsonNumber(run.json, "latency_seconds.min"), 0.002);
  EXPECT_GT(JsonNumber(run.json, "latency_seconds.p50"), 0.004);
  FlatJson s = Stopped(server);
  EXPECT_EQ(JsonCount(s, "requests.received"), 5000u);
  EXPECT_EQ(JsonCount(s, "requests.answered"), 5000u);
  EXPECT_EQ(JsonCount(s, "connections.accepted"), 4u);
  EXPECT_EQ(JsonCount(s, "tls.handshakes"), 4u);
  EXPECT_EQ(s.at("listen"), LoopbackAddress(server.port()) + " (UDP, HTTP/3)");
}

// Bodies of many packets each way: sends of several packets at once (GSO runs, copied into
// the larger send buffers) arrive whole, with next to nothing sent twice, and every request is
// received once.
TEST(ServeHttp3E2ETest, BodiesOfManyPacketsArriveWholeEachWay) {
  ASSERT_TRUE(SharedCert().ok());
  char body[] = "/tmp/uringload-h3-body-XXXXXX";
  close(mkstemp(body));
  constexpr uint64_t kBodyBytes = 20000;  // About 14 packets.
  std::ofstream(body) << std::string(kBodyBytes, 'b');
  UringloadServer server(Http3Serve({"--body-size", std::to_string(kBodyBytes)}));
  ASSERT_TRUE(server.ok());
  RunOutput run =
      RunHttp3(server, {"-n", "400", "-c", "2", "-p", "4", "-m", "POST", "--body-file", body});
  unlink(body);
  ExpectAllOk(run, 400);
  EXPECT_GE(JsonCount(run.json, "bytes.sent"), 400 * kBodyBytes);
  EXPECT_GE(JsonCount(run.json, "bytes.received"), 400 * kBodyBytes);
  uint64_t sent = JsonCount(run.json, "quic.packets_sent");
  EXPECT_GE(sent, 400 * kBodyBytes / 1452);
  // Loopback loses next to nothing. A send carrying stale bytes after its first packet would be
  // made good by QUIC, but as lost packets (37% of the client's when that was tried) and bytes
  // sent again (the server's bytes would be several times the bodies).
  EXPECT_LE(JsonCount(run.json, "quic.packets_lost"), sent / 50);
  FlatJson s = Stopped(server);
  EXPECT_EQ(JsonCount(s, "requests.received"), 400u);
  EXPECT_EQ(JsonCount(s, "requests.answered"), 400u);
  EXPECT_GE(JsonCount(s, "bytes.received"), 400 * kBodyBytes);
  EXPECT_LE(JsonCount(s, "bytes.sent"), 400 * kBodyBytes * 12 / 10);
}

// --warmup leaves the same traffic out of every counter: the packets counted per byte counted
// are as many with a warmup as without (packets counted through the warmup, bytes not, gave
// about four times as many).
TEST(ServeHttp3E2ETest, PacketCountersFollowTheWarmupAsBytesDo) {
  ASSERT_TRUE(SharedCert().ok());
  UringloadServer server(Http3Serve());
  ASSERT_TRUE(server.ok());
  auto bytes_per_packet = [&](std::vector<std::string> warmup) {
    std::vector<std::string> args = {"-R", "200", "-d", "2s", "-c", "2"};
    args.insert(args.end(), warmup.begin(), warmup.end());
    RunOutput run = RunHttp3(server, args);
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    double sent = JsonNumber(run.json, "bytes.sent") / JsonNumber(run.json, "quic.packets_sent");
    double received =
        JsonNumber(run.json, "bytes.received") / JsonNumber(run.json, "quic.packets_received");
    return std::pair(sent, received);
  };
  auto [sent, received] = bytes_per_packet({});
  auto [warm_sent, warm_received] = bytes_per_packet({"--warmup", "1.5s"});
  EXPECT_NEAR(warm_sent / sent, 1.0, 0.3) << warm_sent << " " << sent;
  EXPECT_NEAR(warm_received / received, 1.0, 0.3) << warm_received << " " << received;
}

// ngtcp2's own client: three requests on one connection, each answered with the echoed path
// segment, and counted once by the server.
TEST(ServeHttp3E2ETest, NgtcpsOwnClientGetsItsAnswers) {
  ASSERT_TRUE(SharedCert().ok());
  UringloadServer server(Http3Serve({"--fault-status", "503", "--fault-status-rate", "1"}));
  ASSERT_TRUE(server.ok());
  std::string port = std::to_string(server.port());
  ProcessResult client =
      RunProcess({"/usr/bin/gtlsclient", "--exit-on-all-streams-close", "--no-quic-dump", "-n", "3",
                  "127.0.0.1", port, "https://127.0.0.1:" + port + "/echoed"},
                 30);
  EXPECT_EQ(client.exit_code, 0) << client.err;
  std::string out = client.out + client.err;
  size_t statuses = 0;
  for (size_t at = out.find("[:status: 503]"); at != std::string::npos;
       at = out.find("[:status: 503]", at + 1)) {
    ++statuses;
  }
  EXPECT_EQ(statuses, 3u) << out;
  EXPECT_NE(out.find("|echoed|"), std::string::npos) << out;
  FlatJson s = Stopped(server);
  EXPECT_EQ(JsonCount(s, "requests.received"), 3u);
  EXPECT_EQ(JsonCount(s, "faults.status"), 3u);
  EXPECT_EQ(JsonCount(s, "connections.accepted"), 1u);
}

// Two shards of one run over HTTP/3, each with a threshold and a timeline, merged: the
// shards' counts add up to the server's, the merge keeps the HTTP/3 connections, each
// timeline has its records, and the thresholds hold.
TEST(ServeHttp3E2ETest, ShardsWithThresholdsAndTimelinesMergeToTheServersCount) {
  ASSERT_TRUE(SharedCert().ok());
  UringloadServer server(Http3Serve());
  ASSERT_TRUE(server.ok());
  std::vector<std::string> results, timelines;
  for (int k = 0; k < 2; ++k) {
    char result[] = "/tmp/uringload-h3-shard-XXXXXX";
    close(mkstemp(result));
    char timeline[] = "/tmp/uringload-h3-timeline-XXXXXX";
    close(mkstemp(timeline));
    results.push_back(result);
    timelines.push_back(timeline);
    // --allow-saturated: the thresholds here are about the counts; a shard slowed by a busy
    // machine (the tests run two at a time) says so and would fail them otherwise.
    std::vector<std::string> argv = {UringloadBinary(),
                                     "run",
                                     "--http3",
                                     "--cacert",
                                     SharedCert().cert(),
                                     "-n",
                                     "4000",
                                     "-c",
                                     "2",
                                     "-p",
                                     "4"};
    argv.insert(argv.end(), {"--shard", std::to_string(k) + "/2", "--run-id", "h3"});
    argv.insert(argv.end(), {"--fail-if", "error_rate>0%", "--allow-saturated"});
    argv.insert(argv.end(), {"--timeline", timeline, "--interval", "100ms"});
    argv.insert(argv.end(), {"--json", result, "-q", server.HttpsUrl("/{i}")});
    ProcessResult shard = RunProcess(argv, 120);
    EXPECT_EQ(shard.exit_code, 0) << shard.err;
  }
  char merged[] = "/tmp/uringload-h3-merged-XXXXXX";
  close(mkstemp(merged));
  ProcessResult merge = RunProcess({UringloadBinary(), "merge", results[0], results[1], "--json",
                                    merged, "--fail-if", "ok<4000", "--allow-saturated", "-q"},
                                   60);
  EXPECT_EQ(merge.exit_code, 0) << merge.err;
  std::ifstream in(merged);
  absl::StatusOr<FlatJson> j = FlattenJson(
      std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(JsonCount(*j, "outcomes.ok"), 4000u);
  EXPECT_EQ(JsonCount(*j, "connections.protocols.h3"), 2u);  // -c 2 is the run's: one a shard.
  for (const std::string& timeline : timelines) {
    std::ifstream t(timeline);
    std::string text((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("\"ok\""), std::string::npos) << timeline;
  }
  FlatJson s = Stopped(server);
  EXPECT_EQ(JsonCount(s, "requests.received"), 4000u);
  for (const std::string& path : results) unlink(path.c_str());
  for (const std::string& path : timelines) unlink(path.c_str());
  unlink(merged);
}

// Bad input exits 2 with one line before any traffic; a UDP port someone else holds is
// refused, not shared.
TEST(ServeHttp3E2ETest, BadInputAndATakenUdpPortExitTwoWithTheirLine) {
  ASSERT_TRUE(SharedCert().ok());
  std::string cert = SharedCert().cert(), key = SharedCert().key();
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {{"--http3"}, "--http3: needs --tls-cert and --tls-key"},
           {{"--http3", "--http2", "--tls-cert", cert, "--tls-key", key}, "not with --http2"},
           {{"--http3", "-t", "2", "--tls-cert", cert, "--tls-key", key}, "one thread"},
           {{"--http3", "--log-requests", "/tmp/log", "--tls-cert", cert, "--tls-key", key},
            "--log-requests is for HTTP/1.1 and HTTP/2"},
           {{"--http3", "--unix", "/tmp/x.sock", "--tls-cert", cert, "--tls-key", key},
            "not with --unix"},
       }) {
    std::vector<std::string> argv = {UringloadBinary(), "serve", "--listen",
                                     LoopbackAddress(FreePort())};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    ProcessResult r = RunProcess(argv, 10);
    EXPECT_EQ(r.exit_code, 2) << c.says << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // Someone else's UDP socket on the port.
  SilentUdpSocket taken;
  std::vector<std::string> argv = {UringloadBinary(), "serve", "--listen",
                                   LoopbackAddress(taken.port())};
  std::vector<std::string> flags = Http3Serve();
  argv.insert(argv.end(), flags.begin(), flags.end());
  ProcessResult r = RunProcess(argv, 20);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot listen on UDP"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace uringload::testing
