// End-to-end `serve --http3`, what goes wrong and what is sent again: each fault the server
// injects counted once on both sides (a malformed response a parse_error, a partial answer, a
// stateless reset a reset of its own cause), GOAWAY's rejected requests sent again and
// processed once, 0-RTT taken, and refused by a restarted server and sent again (every resend
// counted in requests.retried).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>
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

}  // namespace
}  // namespace uringload::testing
