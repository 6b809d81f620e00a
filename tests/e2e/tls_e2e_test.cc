// End-to-end HTTPS: the real `uringload run` against nginx (ssl) and `uringload serve
// --tls-cert`, with certificates the test makes: exact counts, verification, resumption,
// faults, version and cipher choices.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/nginx.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

std::vector<std::string> ServeTls(std::vector<std::string> more = {}) {
  std::vector<std::string> flags = {"--tls-cert", SharedCert().cert(), "--tls-key",
                                    SharedCert().key()};
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

// -c, -t, keep-alive, requests.
class TlsCounts : public ::testing::TestWithParam<std::tuple<int, int, bool, uint64_t>> {};

// The matrix runs twice: `Small` against the checked binaries at 3,000 requests a keep-alive
// point and 1,000 a --no-keepalive one, each a handshake (the sanitizer passes check the path's
// memory and threads; CTest label `small`; at 3,000 the close points were two thirds of the
// ASan pass's time for the matrix), and `Long`
// against the plain build (CTest label `long`): 100,000 requests per keep-alive point and
// 20,000 per --no-keepalive one (5,000 at -c 1), each a resumed handshake (at 100,000 those five
// points took 48-221 s each, half of CI's test time for TLS). A connect lasts until its handshake
// ends: 1,000 full handshakes at once against one nginx worker passed the default 5 s connect
// timeout on a loaded machine (480 of 100,000 on 2026-12-01, while another process held a CPU). The
// matrix is about counts, so 60 s.
const char* const kConnectTimeout = "60s";

// The run's flags for one matrix point: -n, -c, -t, the connect timeout, --no-keepalive when
// the point says so, then `rest` (trust flags and the URL).
std::vector<std::string> MatrixArgs(const std::tuple<int, int, bool, uint64_t>& point,
                                    std::vector<std::string> rest) {
  auto [concurrency, threads, keepalive, requests] = point;
  std::vector<std::string> args = {"-n",
                                   std::to_string(requests),
                                   "-c",
                                   std::to_string(concurrency),
                                   "-t",
                                   std::to_string(threads),
                                   "--connect-timeout",
                                   kConnectTimeout};
  if (!keepalive) args.push_back("--no-keepalive");
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

TEST_P(TlsCounts, NginxAnswersExactlyTheOkRequests) {
  ASSERT_TRUE(SharedCert().ok());
  NginxServer nginx({.tls_cert = SharedCert().cert(), .tls_key = SharedCert().key()});
  ASSERT_TRUE(nginx.ok());
  uint64_t n = std::get<3>(GetParam());
  RunOutput run = RunUringload(
      MatrixArgs(GetParam(), {"--cacert", SharedCert().cert(), nginx.Url("/{i}")}), 600);
  ExpectAllOk(run, n);
  EXPECT_EQ(nginx.RequestsLogged(), n);
  EXPECT_EQ(JsonCount(run.json, "tls.handshakes"), JsonCount(run.json, "connections.opened"));
}

TEST_P(TlsCounts, ServeAnswersExactlyTheOkRequests) {
  ASSERT_TRUE(SharedCert().ok());
  UringloadServer server(ServeTls());
  ASSERT_TRUE(server.ok());
  uint64_t n = std::get<3>(GetParam());
  RunOutput run = RunUringload(MatrixArgs(GetParam(), {"-k", server.HttpsUrl("/{i}")}), 600);
  ExpectAllOk(run, n);
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), n);
  EXPECT_EQ(JsonCount(summary, "tls.handshakes"), JsonCount(run.json, "tls.handshakes"));
  // Every connection the client closed, it closed with close_notify.
  EXPECT_EQ(JsonCount(summary, "tls.closed_without_close_notify"), 0u);
}

std::string PointName(const ::testing::TestParamInfo<TlsCounts::ParamType>& info) {
  return "c" + std::to_string(std::get<0>(info.param)) + "_t" +
         std::to_string(std::get<1>(info.param)) +
         (std::get<2>(info.param) ? "_keepalive" : "_close");
}

// -c 1, 100, 1000 × -t 1, 2 × keep-alive or not, with `keepalive_requests` or
// `close_requests` each. Not -c 1 -t 2: a run never has more threads than connections, so it
// is -c 1 -t 1 again.
std::vector<std::tuple<int, int, bool, uint64_t>> MatrixPoints(uint64_t keepalive_requests,
                                                               uint64_t close_requests) {
  std::vector<std::tuple<int, int, bool, uint64_t>> points;
  for (int c : {1, 100, 1000}) {
    for (int t : {1, 2}) {
      if (t > c) continue;
      for (bool keepalive : {false, true}) {
        // -c 1 --no-keepalive is one handshake after another: a quarter of the handshakes
        // count the same (20,000 of them took 50 s of CI there).
        uint64_t close = c == 1 ? close_requests / 4 : close_requests;
        points.emplace_back(c, t, keepalive, keepalive ? keepalive_requests : close);
      }
    }
  }
  return points;
}

INSTANTIATE_TEST_SUITE_P(Small, TlsCounts, ::testing::ValuesIn(MatrixPoints(3'000, 1'000)),
                         PointName);
INSTANTIATE_TEST_SUITE_P(Long, TlsCounts, ::testing::ValuesIn(MatrixPoints(100'000, 20'000)),
                         PointName);

TEST(TlsE2ETest, VerificationFailuresAreConnectErrorsWithTheReason) {
  SelfSignedCert localhost_only("DNS:localhost");
  ASSERT_TRUE(localhost_only.ok());
  UringloadServer server({"--tls-cert", localhost_only.cert(), "--tls-key", localhost_only.key()});
  ASSERT_TRUE(server.ok());
  std::string port = std::to_string(server.port());
  RunOutput untrusted = RunUringload({"-n", "50", "-c", "5", "https://localhost:" + port + "/"});
  ASSERT_EQ(untrusted.process.exit_code, 0) << untrusted.process.err;
  EXPECT_EQ(JsonCount(untrusted.json, "outcomes.connect_error"), 50u);
  EXPECT_EQ(untrusted.json.at("errors.0.message"),
            "certificate verify failed: self-signed certificate");
  RunOutput trusted = RunUringload({"-n", "50", "-c", "5", "--cacert", localhost_only.cert(),
                                    "https://localhost:" + port + "/"});
  ExpectAllOk(trusted, 50);
  RunOutput wrong_name = RunUringload({"-n", "50", "-c", "5", "--cacert", localhost_only.cert(),
                                       "https://127.0.0.1:" + port + "/"});
  EXPECT_EQ(JsonCount(wrong_name.json, "outcomes.connect_error"), 50u);
  EXPECT_EQ(wrong_name.json.at("errors.0.message"),
            "certificate verify failed: IP address mismatch");
  RunOutput insecure =
      RunUringload({"-n", "50", "-c", "5", "-k", "https://127.0.0.1:" + port + "/"});
  ExpectAllOk(insecure, 50);
}

TEST(TlsE2ETest, ReconnectsResumeSessionsUnlessTold) {
  UringloadServer server(ServeTls());
  ASSERT_TRUE(server.ok());
  RunOutput resumed = RunUringload(
      {"-n", "500", "-c", "5", "-t", "1", "--no-keepalive", "-k", server.HttpsUrl("/")});
  ExpectAllOk(resumed, 500);
  EXPECT_EQ(JsonCount(resumed.json, "tls.handshakes"), 500u);
  // Every handshake but each connection's first (5 at once, before any ticket) resumes; with
  // one session object shared by the connections, 396-470 did.
  EXPECT_EQ(JsonCount(resumed.json, "tls.resumed"), 495u);
  RunOutput full = RunUringload({"-n", "500", "-c", "5", "-t", "1", "--no-keepalive",
                                 "--no-tls-resume", "-k", server.HttpsUrl("/")});
  ExpectAllOk(full, 500);
  EXPECT_EQ(JsonCount(full.json, "tls.resumed"), 0u);
  EXPECT_GT(std::stod(full.json.at("tls_handshake_seconds.p50")), 0.0);
}

TEST(TlsE2ETest, VersionAndCiphersArePassedThrough) {
  UringloadServer server(ServeTls());
  ASSERT_TRUE(server.ok());
  RunOutput v13 = RunUringload(
      {"-n", "20", "-k", "--ciphersuites", "TLS_CHACHA20_POLY1305_SHA256", server.HttpsUrl("/")});
  ExpectAllOk(v13, 20);
  EXPECT_EQ(v13.json.at("tls.version"), "TLSv1.3");
  EXPECT_EQ(v13.json.at("tls.cipher"), "TLS_CHACHA20_POLY1305_SHA256");
  RunOutput v12 = RunUringload({"-n", "20", "-k", "--tls-max-version", "1.2", "--ciphers",
                                "ECDHE-ECDSA-AES128-GCM-SHA256", server.HttpsUrl("/")});
  ExpectAllOk(v12, 20);
  EXPECT_EQ(v12.json.at("tls.version"), "TLSv1.2");
  EXPECT_EQ(v12.json.at("tls.cipher"), "ECDHE-ECDSA-AES128-GCM-SHA256");
}

// The faults of plain TCP, counted exactly over TLS; a close without close_notify is its own
// cause, apart from a close before the response.
TEST(TlsE2ETest, FaultsAreCountedExactlyOverTls) {
  UringloadServer server(
      ServeTls({"--fault-reset", "0.01", "--fault-partial", "0.01", "--fault-malformed", "0.01",
                "--fault-stall", "0.005", "--fault-no-close-notify", "0.01"}));
  ASSERT_TRUE(server.ok());
  // A stalled request times out after 3 s: long enough that an answered one is never late
  // (at 1 s, an ASan client on a busy machine once took longer for one of 19,076).
  RunOutput run =
      RunUringload({"-n", "20000", "-c", "50", "--timeout", "3s", "-k", server.HttpsUrl("/")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(run.json, "requests.completed"), 20000u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), JsonCount(summary, "requests.answered"));
  EXPECT_EQ(JsonCount(run.json, "outcomes.timeout"), JsonCount(summary, "faults.stall"));
  EXPECT_EQ(JsonCount(run.json, "outcomes.parse_error"),
            JsonCount(summary, "faults.partial") + JsonCount(summary, "faults.malformed"));
  EXPECT_EQ(JsonCount(run.json, "outcomes.reset"),
            JsonCount(summary, "faults.reset") + JsonCount(summary, "faults.no_close_notify"));
  uint64_t without_notify = 0;
  for (int i = 0; run.json.count("errors." + std::to_string(i) + ".message"); ++i) {
    std::string at = "errors." + std::to_string(i);
    if (run.json.at(at + ".message") == "TLS connection closed without close_notify") {
      without_notify = JsonCount(run.json, at + ".count");
    }
  }
  EXPECT_EQ(without_notify, JsonCount(summary, "faults.no_close_notify"));
  EXPECT_GT(without_notify, 0u);
}

// Long: run in the plain build only (CTest label `long`).
TEST(TlsLongE2ETest, TenThousandTlsConnectionsHeld) {
  // Each response waits 15 s, so every connection is open at once (10,000 handshakes take
  // ~5 s of the server's CPU here). A connect lasts until its handshake ends, and 2,048 are in
  // flight (the ramp): under ASan the server finishes ~700 handshakes a second, so a connect
  // waits ~3 s on average and 11 to 159 of 10,000 passed the default 5 s connect timeout
  // (measured 2026-12-01, CI failed on 2). The test is about holding connections, not about
  // the server's handshake rate: the connect timeout is 60 s.
  UringloadServer server(ServeTls({"-t", "2", "--delay", "15s"}));
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "10000", "-c", "10000", "-t", "2", "--timeout", "60s",
                                "--connect-timeout", "60s", "-k", server.HttpsUrl("/")},
                               600);
  ExpectAllOk(run, 10000);
  EXPECT_EQ(JsonCount(run.json, "connections.peak"), 10000u);
  EXPECT_EQ(JsonCount(run.json, "tls.handshakes"), 10000u);
}

TEST(TlsE2ETest, BadTlsInputExitsTwoBeforeAnyTraffic) {
  UringloadServer server(ServeTls());
  ASSERT_TRUE(server.ok());
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"--cacert", "/nonexistent.pem"},
                                             {"--tls-max-version", "1.1"},
                                             {"--ciphers", "NOT-A-CIPHER"}}) {
    args.insert(args.begin(), {"-n", "10"});
    args.push_back(server.HttpsUrl("/"));
    RunOutput run = RunUringload(args);
    EXPECT_EQ(run.process.exit_code, 2) << args[2];
  }
  RunOutput plain = RunUringload({"-n", "10", "-k", "http://127.0.0.1:1/"});
  EXPECT_EQ(plain.process.exit_code, 2);
  EXPECT_NE(plain.process.err.find("need an https:// URL"), std::string::npos);
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "connections.accepted"), 0u);
}

}  // namespace
}  // namespace uringload::testing
