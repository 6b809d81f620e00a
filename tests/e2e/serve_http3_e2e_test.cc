// End-to-end `serve --http3`: the real `uringload run --http3` against it, and ngtcp2's own
// client (gtlsclient) as a peer nobody here wrote: exact counts on both sides, its delays,
// request bodies of many packets, each fault counted once on both sides (a malformed response a
// parse_error, a stateless reset a reset of its own cause), GOAWAY's rejected
// requests sent again and processed once, shards merged with thresholds and a timeline, 0-RTT
// taken and refused; bad input, and a UDP port someone else holds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

std::vector<std::string> Http3Serve(std::vector<std::string> more = {}) {
  std::vector<std::string> flags = {"--http3", "--tls-cert", SharedCert().cert(), "--tls-key",
                                    SharedCert().key()};
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

// `run --http3` trusting the server's certificate, `args` before the URL.
RunOutput RunHttp3(const UringloadServer& server, std::vector<std::string> args,
                   const std::string& path = "/{i}") {
  args.insert(args.begin(), {"--http3", "--cacert", SharedCert().cert()});
  args.push_back(server.HttpsUrl(path));
  return RunUringload(args);
}

FlatJson Stopped(UringloadServer& server) {
  FlatJson summary;
  EXPECT_EQ(server.Stop(&summary), 0);
  return summary;
}

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

// Each fault the server injects is the one outcome the client counts for it.
TEST(ServeHttp3E2ETest, ClientCountsExactlyWhatTheServerInjected) {
  ASSERT_TRUE(SharedCert().ok());
  struct Case {
    std::vector<std::string> flags;
    const char* fault;
    const char* outcome;
  };
  for (const Case& c : std::vector<Case>{
           {{"--fault-stall", "0.01"}, "stall", "outcomes.timeout"},
           {{"--fault-malformed", "0.01"}, "malformed", "outcomes.parse_error"},
           {{"--fault-partial", "0.01"}, "partial", "outcomes.reset"},
           {{"--fault-rst-stream", "0.01"}, "rst_stream", "outcomes.reset"},
           {{"--fault-status", "503", "--fault-status-rate", "0.01"}, "status", "status_codes.503"},
       }) {
    std::vector<std::string> flags = c.flags;
    flags.insert(flags.end(), {"--seed", "7"});
    UringloadServer server(Http3Serve(flags));
    ASSERT_TRUE(server.ok()) << c.fault;
    RunOutput run = RunHttp3(server, {"-n", "3000", "-c", "4", "-p", "8", "--timeout", "1s"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    FlatJson s = Stopped(server);
    uint64_t injected = JsonCount(s, std::string("faults.") + c.fault);
    EXPECT_GT(injected, 0u) << c.fault;
    EXPECT_EQ(JsonCount(run.json, c.outcome), injected) << c.fault << ErrorsOf(run.json);
    EXPECT_EQ(JsonCount(run.json, "requests.completed"), 3000u) << c.fault;
    EXPECT_EQ(JsonCount(run.json, "connections.opened"), 4u) << c.fault;
    EXPECT_EQ(JsonCount(s, "requests.received"), 3000u) << c.fault;
  }
}

// The partial fault: the headers and half the body reach the client, and once it acknowledged
// them the stream is reset (H3_INTERNAL_ERROR): each request one reset, and the client
// received half of each body, not more.
TEST(ServeHttp3E2ETest, APartialAnswerIsHalfItsBodyThenAReset) {
  ASSERT_TRUE(SharedCert().ok());
  constexpr uint64_t kBody = 100'000;
  UringloadServer server(
      Http3Serve({"--fault-partial", "1", "--body-size", std::to_string(kBody)}));
  ASSERT_TRUE(server.ok());
  RunOutput run = RunHttp3(server, {"-n", "20", "-c", "2", "-p", "1"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  FlatJson s = Stopped(server);
  EXPECT_EQ(JsonCount(s, "faults.partial"), 20u);
  EXPECT_EQ(JsonCount(s, "requests.answered"), 0u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.reset"), 20u) << ErrorsOf(run.json);
  EXPECT_NE(ErrorsOf(run.json).find("20 x HTTP/3 stream reset: H3_INTERNAL_ERROR"),
            std::string::npos)
      << ErrorsOf(run.json);
  // Every half whole, and not much more: QUIC's packet headers and tags, and the handshakes,
  // add about 4% (1,042,559 bytes measured); whole bodies would be twice as many.
  EXPECT_GE(JsonCount(run.json, "bytes.received"), 20 * kBody / 2);
  EXPECT_LE(JsonCount(run.json, "bytes.received"), 20 * kBody * 6 / 10);
}

// The faults that end a connection: the reset fault with CONNECTION_CLOSE(H3_INTERNAL_ERROR),
// the no-close-notify fault as a server that lost it, with a stateless reset and no
// CONNECTION_CLOSE. Each request in flight on it is a reset saying which, the client
// reconnects, and every request ends once: with one request in flight a connection, the
// counts match the server's exactly.
TEST(ServeHttp3E2ETest, ConnectionEndingFaultsAreResetsOfTheirOwnCause) {
  ASSERT_TRUE(SharedCert().ok());
  struct Case {
    const char* flag;
    const char* fault;
    const char* cause;
  };
  for (const Case& c : std::vector<Case>{
           {"--fault-reset", "reset", "H3_INTERNAL_ERROR"},
           {"--fault-no-close-notify", "no_close_notify", "QUIC stateless reset"},
       }) {
    for (const char* streams : {"1", "8"}) {
      SCOPED_TRACE(std::string(c.flag) + " -p " + streams);
      UringloadServer server(Http3Serve({c.flag, "0.01", "--seed", "3"}));
      ASSERT_TRUE(server.ok());
      RunOutput run = RunHttp3(server, {"-n", "2000", "-c", "4", "-p", streams});
      ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
      FlatJson s = Stopped(server);
      uint64_t ended = JsonCount(s, std::string("faults.") + c.fault);
      uint64_t ok = JsonCount(run.json, "outcomes.ok");
      uint64_t resets = JsonCount(run.json, "outcomes.reset");
      EXPECT_GT(ended, 0u);
      EXPECT_EQ(ok + resets, 2000u) << ErrorsOf(run.json);
      EXPECT_NE(ErrorsOf(run.json).find(std::to_string(resets) + " x "), std::string::npos)
          << ErrorsOf(run.json);  // One cause for all of them,
      EXPECT_NE(ErrorsOf(run.json).find(c.cause), std::string::npos)
          << ErrorsOf(run.json);  // and the fault's.
      uint64_t accepted = JsonCount(s, "connections.accepted");
      EXPECT_EQ(JsonCount(run.json, "connections.opened"), accepted);
      EXPECT_LE(accepted, 4 + ended);
      if (std::string(streams) == "1") {
        EXPECT_EQ(resets, ended);
        EXPECT_EQ(ok, JsonCount(s, "requests.answered"));
        EXPECT_GE(accepted, ended);
      } else {  // Those in flight on it too; answers not yet sent are lost with it.
        EXPECT_GE(resets, ended);
        EXPECT_LE(ok, JsonCount(s, "requests.answered"));
      }
    }
  }
}

// GOAWAY after 30 requests of each connection: the requests beyond it are rejected
// unprocessed, sent again on a new connection, and the server processes each exactly once.
TEST(ServeHttp3E2ETest, GoawayResendsLandExactlyOnce) {
  ASSERT_TRUE(SharedCert().ok());
  UringloadServer server(Http3Serve({"--http2-goaway-after", "30"}));
  ASSERT_TRUE(server.ok());
  RunOutput run = RunHttp3(server, {"-n", "3000", "-c", "4", "-p", "16"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "requests.completed"), 3000u);
  EXPECT_GE(JsonCount(run.json, "connections.opened"), 3000u / 30);
  EXPECT_GT(JsonCount(run.json, "requests.retried"), 0u);
  // A request is sent again once: one whose second connection's GOAWAY also crossed it on the
  // way (4 runs in 100 here) is rejected twice, and counted a reset saying so.
  uint64_t ok = JsonCount(run.json, "outcomes.ok");
  uint64_t rejected_twice = JsonCount(run.json, "outcomes.reset");
  EXPECT_EQ(ok + rejected_twice, 3000u) << ErrorsOf(run.json);
  EXPECT_LE(rejected_twice, 30u) << ErrorsOf(run.json);
  if (rejected_twice > 0) {
    EXPECT_NE(ErrorsOf(run.json).find(std::to_string(rejected_twice) +
                                      " x HTTP/3 stream reset: H3_REQUEST_REJECTED"),
              std::string::npos)
        << ErrorsOf(run.json);
  }
  FlatJson s = Stopped(server);
  EXPECT_EQ(JsonCount(s, "requests.received"), ok);  // Each processed once; no rejected one.
  EXPECT_EQ(JsonCount(s, "requests.answered"), ok);
}

// --0rtt with one request per connection: every reconnect resumes the last session and sends
// its request in 0-RTT, which the server takes; each request arrives once. Without --0rtt none
// is sent early.
TEST(ServeHttp3E2ETest, ZeroRttSendsEachReconnectsRequestEarlyOnce) {
  ASSERT_TRUE(SharedCert().ok());
  for (bool zero_rtt : {true, false}) {
    UringloadServer server(Http3Serve());
    ASSERT_TRUE(server.ok());
    std::vector<std::string> args = {"-n", "200", "-c", "1", "--no-keepalive"};
    if (zero_rtt) args.push_back("--0rtt");
    RunOutput run = RunHttp3(server, args);
    ExpectAllOk(run, 200);
    EXPECT_EQ(JsonCount(run.json, "tls.resumed"), 199u) << zero_rtt;
    EXPECT_EQ(JsonCount(run.json, "quic.zero_rtt_attempted"), zero_rtt ? 199u : 0u);
    EXPECT_EQ(JsonCount(run.json, "quic.zero_rtt_accepted"), zero_rtt ? 199u : 0u);
    FlatJson s = Stopped(server);
    EXPECT_EQ(JsonCount(s, "requests.received"), 200u) << zero_rtt;
    EXPECT_EQ(JsonCount(s, "connections.accepted"), 200u) << zero_rtt;
  }
}

// A server restarted mid-run has a new ticket key: the sessions the client kept no longer
// resume, the server drops the 0-RTT requests it cannot read, and the client sends them again
// once the handshake ended. Every request ends once; the new server answers all it received.
TEST(ServeHttp3E2ETest, ZeroRttARestartedServerRefusesIsSentAgain) {
  ASSERT_TRUE(SharedCert().ok());
  auto first = std::make_unique<UringloadServer>(Http3Serve());
  ASSERT_TRUE(first->ok());
  uint16_t port = first->port();
  std::string result = "/tmp/uringload-0rtt-" + std::to_string(getpid()) + ".json";
  BackgroundProcess run({UringloadBinary(),
                         "run",
                         "--http3",
                         "--0rtt",
                         "--cacert",
                         SharedCert().cert(),
                         "-c",
                         "1",
                         "--no-keepalive",
                         "-R",
                         "40",
                         "-d",
                         "3s",
                         "--connect-timeout",
                         "1s",
                         "--timeout",
                         "2s",
                         "--json",
                         result,
                         "-q",
                         first->HttpsUrl("/{i}")});
  usleep(1'000'000);
  FlatJson a;
  ASSERT_EQ(first->Stop(&a), 0);
  std::string second_json = result + ".server";
  std::vector<std::string> argv = {UringloadBinary(),     "serve",  "-q",       "--listen",
                                   LoopbackAddress(port), "--json", second_json};
  std::vector<std::string> flags = Http3Serve();
  argv.insert(argv.end(), flags.begin(), flags.end());
  BackgroundProcess second(argv);
  bool up = false;
  for (int i = 0; i < 100 && !up && second.running(); ++i) {
    up = ReceivesUdpOn(second.pid(), port);
    if (!up) usleep(20'000);
  }
  ASSERT_TRUE(up);
  ASSERT_EQ(run.Wait(60), 0);
  ASSERT_EQ(second.Stop(SIGTERM), 0);
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    absl::StatusOr<FlatJson> j = FlattenJson(
        std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
    unlink(path.c_str());
    return j.ok() ? *j : FlatJson{};
  };
  FlatJson r = read(result), b = read(second_json);
  uint64_t started = JsonCount(r, "requests.started");
  EXPECT_GT(started, 80u);
  EXPECT_EQ(JsonCount(r, "requests.completed"), started);
  uint64_t attempted = JsonCount(r, "quic.zero_rtt_attempted");
  uint64_t accepted = JsonCount(r, "quic.zero_rtt_accepted");
  // The first server took them; the second refused the first reconnect's (the old session),
  // whose ticket then resumed the rest.
  EXPECT_GT(accepted, 0u);
  EXPECT_GE(attempted, accepted + 1);
  EXPECT_GT(JsonCount(b, "requests.received"), 40u);
  EXPECT_EQ(JsonCount(b, "requests.received"), JsonCount(b, "requests.answered"));
  // A refused request that did not go again would time out; the one request that may have
  // been in flight when the first server stopped does.
  EXPECT_LE(JsonCount(r, "outcomes.timeout"), 1u) << ErrorsOf(r);
  uint64_t ok = JsonCount(r, "outcomes.ok");
  EXPECT_GE(ok, JsonCount(b, "requests.answered"));
  EXPECT_LE(ok, JsonCount(a, "requests.answered") + JsonCount(b, "requests.answered"))
      << ErrorsOf(r);
  // Every request either server received was a send the client counted: a first one
  // (started) or another (retried, which the refused 0-RTT sends are).
  uint64_t retried = JsonCount(r, "requests.retried");
  EXPECT_GE(retried, attempted - accepted);
  EXPECT_LE(JsonCount(a, "requests.received") + JsonCount(b, "requests.received"),
            started + retried);
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
