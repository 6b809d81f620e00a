// End-to-end: every fault kind `uringload serve` injects is counted identically by the client
// (20,000 requests each, exact counts; no timing, so these run beside other tests).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"

namespace uringload::testing {
namespace {

struct FaultCase {
  std::vector<std::string> flags;
  std::string server_key;  // faults.<kind>
  std::string client_key;  // Where the client counts it.
};

class ServeFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(ServeFaults, ClientCountsExactlyWhatTheServerInjected) {
  const FaultCase& c = GetParam();
  std::vector<std::string> flags = c.flags;
  flags.insert(flags.end(), {"--seed", "42"});
  UringloadServer server(flags);
  ASSERT_TRUE(server.ok());
  constexpr uint64_t kN = 20000;
  RunOutput run =
      RunUringload({"-n", std::to_string(kN), "-c", "1000", "--timeout", "1s", server.Url("/{i}")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  uint64_t injected = JsonCount(summary, "faults." + c.server_key);
  EXPECT_GT(injected, kN / 20);  // ~10%: the fault really happened.
  EXPECT_LT(injected, kN / 5);
  EXPECT_EQ(JsonCount(run.json, c.client_key), injected);
  EXPECT_EQ(JsonCount(run.json, "requests.completed"), kN);
  EXPECT_EQ(
      JsonCount(run.json, "outcomes.ok") + injected - (c.server_key == "status" ? injected : 0),
      kN);
  EXPECT_EQ(JsonCount(summary, "requests.received"), kN);
}

INSTANTIATE_TEST_SUITE_P(
    EachKind, ServeFaults,
    ::testing::Values(FaultCase{{"--fault-reset", "0.1"}, "reset", "outcomes.reset"},
                      FaultCase{{"--fault-partial", "0.1"}, "partial", "outcomes.parse_error"},
                      FaultCase{{"--fault-malformed", "0.1"}, "malformed", "outcomes.parse_error"},
                      FaultCase{{"--fault-stall", "0.1"}, "stall", "outcomes.timeout"},
                      FaultCase{{"--fault-status", "503", "--fault-status-rate", "0.1"},
                                "status",
                                "status_codes.503"}),
    [](const ::testing::TestParamInfo<FaultCase>& info) { return info.param.server_key; });

}  // namespace
}  // namespace uringload::testing
