// End-to-end: --expect-status and --expect-body-contains against `serve`, whose answers are
// known in advance: the 503s it injects (and counts itself), and bodies that are the path's
// last segment (the request's index). Exact counts over HTTP/1.1, HTTPS, h2c and h2; no
// timing, so these run beside other tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

struct Mode {
  const char* name;
  bool tls;
  bool http2;
};
constexpr Mode kModes[] = {
    {"http/1.1", false, false}, {"https", true, false}, {"h2c", false, true}, {"h2", true, true}};

std::vector<std::string> ServerFlags(const Mode& mode, std::vector<std::string> flags) {
  if (mode.http2) flags.push_back("--http2");
  if (mode.tls)
    flags.insert(flags.end(), {"--tls-cert", SharedCert().cert(), "--tls-key", SharedCert().key()});
  return flags;
}

// The client's flags for `mode`, then `args`, then the URL of `path` on `server`.
std::vector<std::string> ClientArgs(const Mode& mode, const UringloadServer& server,
                                    std::vector<std::string> args, const std::string& path) {
  std::vector<std::string> all = {mode.http2 ? "--http2" : "--http1.1"};
  if (mode.tls) all.insert(all.end(), {"--cacert", SharedCert().cert()});
  all.insert(all.end(), args.begin(), args.end());
  all.push_back(std::string(mode.tls ? "https" : "http") +
                "://127.0.0.1:" + std::to_string(server.port()) + path);
  return all;
}

// Each 503 the server injected ends check_failed for its status (and is counted with its
// status code), every other response ok; --fail-if check_failed>0 then fails the run.
TEST(ChecksE2ETest, AStatusNotExpectedIsCheckFailedAsOftenAsTheServerSentIt) {
  constexpr uint64_t kN = 2000;
  for (const Mode& mode : kModes) {
    UringloadServer server(
        ServerFlags(mode, {"--fault-status", "503", "--fault-status-rate", "0.1", "--seed", "42"}));
    ASSERT_TRUE(server.ok()) << mode.name;
    RunOutput run =
        RunUringload(ClientArgs(mode, server,
                                {"-n", std::to_string(kN), "-c", "20", "-p", "2", "--expect-status",
                                 "200,204", "--fail-if", "check_failed>0"},
                                "/{i}"));
    FlatJson summary;
    ASSERT_EQ(server.Stop(&summary), 0) << mode.name;
    uint64_t injected = JsonCount(summary, "faults.status");
    EXPECT_GT(injected, kN / 20) << mode.name;  // ~10%: the fault really happened.
    EXPECT_EQ(run.process.exit_code, 3) << mode.name << run.process.err;
    EXPECT_EQ(JsonCount(run.json, "outcomes.check_failed"), injected) << mode.name;
    EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), kN - injected) << mode.name;
    EXPECT_EQ(JsonCount(run.json, "status_codes.503"), injected) << mode.name;
    EXPECT_EQ(JsonCount(run.json, "status_codes.200"), kN - injected) << mode.name;
    EXPECT_EQ(run.json["errors.0.outcome"], "check_failed") << mode.name;
    EXPECT_EQ(run.json["errors.0.message"], "status not expected") << mode.name;
    EXPECT_EQ(JsonCount(run.json, "errors.0.count"), injected) << mode.name;
  }
}

// Request k's body is "k": a body check for "7" passes exactly the indexes with a 7 in them
// (271 of 0-999), whatever the protocol; the rest end check_failed for their body. A status
// class that holds and a text every body has leave every response ok.
TEST(ChecksE2ETest, ABodyWithoutTheTextIsCheckFailedForExactlyTheResponsesThatLackIt) {
  constexpr uint64_t kN = 1000;
  uint64_t with_seven = 0;
  for (uint64_t i = 0; i < kN; ++i) with_seven += std::to_string(i).find('7') != std::string::npos;
  ASSERT_EQ(with_seven, 271u);
  for (const Mode& mode : kModes) {
    UringloadServer server(ServerFlags(mode, {}));
    ASSERT_TRUE(server.ok()) << mode.name;
    RunOutput run = RunUringload(ClientArgs(
        mode, server, {"-n", std::to_string(kN), "-c", "10", "--expect-body-contains", "7"},
        "/item/{i}"));
    ASSERT_EQ(run.process.exit_code, 0) << mode.name << run.process.err;
    EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), with_seven) << mode.name;
    EXPECT_EQ(JsonCount(run.json, "outcomes.check_failed"), kN - with_seven) << mode.name;
    EXPECT_EQ(JsonCount(run.json, "status_codes.200"), kN) << mode.name;
    EXPECT_EQ(run.json["errors.0.message"], "body lacks the expected text") << mode.name;
    ExpectAllOk(RunUringload(ClientArgs(mode, server,
                                        {"-n", "200", "-c", "10", "--expect-status", "2xx",
                                         "--expect-body-contains", "item"},
                                        "/item{i}")),
                200);
  }
}

TEST(ChecksE2ETest, BadChecksExitTwoBeforeAnyTraffic) {
  struct Bad {
    std::vector<std::string> flags;
    const char* says;
  };
  for (const Bad& bad : {Bad{{"--expect-status", "20x"}, "'20x' is not a status code"},
                         Bad{{"--expect-status", "200,"}, "'' is not a status code"},
                         Bad{{"--expect-body-contains", ""}, "the text must not be empty"},
                         Bad{{"--fail-if", "check_faild>0"}, "check_failed"}}) {
    std::vector<std::string> args = bad.flags;
    args.insert(args.end(), {"-n", "1", "http://127.0.0.1:1/"});
    RunOutput run = RunUringload(args);
    EXPECT_EQ(run.process.exit_code, 2) << bad.says;
    EXPECT_NE(run.process.err.find(bad.says), std::string::npos) << run.process.err;
    EXPECT_EQ(std::count(run.process.err.begin(), run.process.err.end(), '\n'), 1)
        << run.process.err;
  }
}

}  // namespace
}  // namespace uringload::testing
