// End-to-end: `uringload search` against `uringload serve` with its service model, a target of
// known capacity: one slot of 1 ms answers at most 1,000 requests a second. Client and server
// each on a CPU of their own, so neither delays the other's wake-ups.
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"

namespace uringload::testing {
namespace {

// The steps of a search's JSON, with their rate, verdict and why.
struct Step {
  double rate;
  bool passed;
  std::string why;
};
std::vector<Step> Steps(const FlatJson& j) {
  std::vector<Step> steps;
  for (int k = 0; j.count("steps." + std::to_string(k) + ".rate"); ++k) {
    std::string at = "steps." + std::to_string(k);
    steps.push_back(
        {JsonNumber(j, at + ".rate"), j.at(at + ".passed") == "true", j.at(at + ".why")});
  }
  return steps;
}

// Steps of 3 s: past capacity the queue then grows long enough to fail the objective
// clearly (at 1,012.5/s, ~40 ms by the end). The lag bound leaves room for this VM, whose
// wake-ups run late by milliseconds at busy times (3-4% of 1 ms sleeps over 1 ms late were
// measured): a step is then invalid only when the client really fell behind.
const std::vector<std::string> kQuickSteps = {"--step-duration",
                                              "3s",
                                              "--warmup",
                                              "500ms",
                                              "--cooldown",
                                              "200ms",
                                              "-t",
                                              "1",
                                              "--cpus",
                                              "0",
                                              "--schedule-lag-bound",
                                              "20ms"};

// A server of one slot and 1 ms per request: at most 1,000/s, less by its own late timer
// wake-ups, so its capacity is measured first (closed model, every slot always taken). The
// rate found lies within 7% below that, every step above 1% over it fails because of its
// p99, and the rate found passed twice.
TEST(SearchE2ETest, LongFindsTheCapacityOfAServerWithOneSlot) {
  UringloadServer server({"-t", "1", "--cpus", "1", "--service-slots", "1", "--delay", "1ms"});
  ASSERT_TRUE(server.ok());
  URINGLOAD_RUN_UNLESS_STARVED(
      closed, RunUringload({"-n", "3000", "-c", "50", "-t", "1", "--cpus", "0", server.Url("/")}));
  ExpectAllOk(closed, 3000);
  double capacity = JsonNumber(closed.json, "requests_per_second");
  ASSERT_GE(capacity, 900);
  ASSERT_LE(capacity, 1000.5);
  std::vector<std::string> args = {"--slo", "p99<30ms", "--start-rate", "400", "-c", "50"};
  args.insert(args.end(), kQuickSteps.begin(), kQuickSteps.end());
  args.push_back(server.Url("/"));
  // All of the client on CPU 0 (its main thread too, which writes each step's result): the
  // server's CPU 1 is its own, or a stall there queues requests past the objective. A step's
  // p99 is the machine's too: a pause of the VM for 100 ms at 800/s queues 80 requests past
  // 30 ms, and the search rightly settles lower. A second search, from scratch, must then
  // find the capacity.
  RunOutput search;
  double found = 0;
  std::string story;  // Each step's rate and why, for a failure's message.
  for (int attempt = 1; attempt <= 2; ++attempt) {
    search = RunUringloadUnder({"taskset", "-c", "0"}, "search", args, 300);
    if (std::string why = StarvedReason(search); !why.empty()) {
      // Another process took the client's CPU: once more, then the verdict is the machine's.
      search = RunUringloadUnder({"taskset", "-c", "0"}, "search", args, 300);
      if (why = StarvedReason(search); !why.empty()) {
        GTEST_SKIP() << "the client was starved twice: " << why;
      }
    }
    ASSERT_EQ(search.process.exit_code, 0) << search.process.err;
    found = JsonNumber(search.json, "rate");
    story += absl::StrCat("\nsearch ", attempt, ":");
    for (const Step& step : Steps(search.json)) {
      story += absl::StrCat("\n", step.rate, ": ", step.why);
    }
    if (found >= 0.93 * capacity) break;
  }
  EXPECT_EQ(search.json["outcome"], "found");
  std::vector<Step> steps = Steps(search.json);
  EXPECT_GE(found, 0.93 * capacity) << "capacity " << capacity << story;
  EXPECT_LE(found, 1000.5) << story;
  EXPECT_LE(JsonNumber(search.json, "bracket.upper") - found, 0.02 * found + 1e-9) << story;
  ASSERT_GE(steps.size(), 6u);
  int found_passes = 0;
  for (const Step& step : steps) {
    if (step.rate == found) found_passes += step.passed;
    if (step.rate > std::max(1.01 * capacity, 1010.0)) {
      EXPECT_FALSE(step.passed) << step.rate;
      EXPECT_NE(step.why.find("p99<30ms: "), std::string::npos) << step.rate << ": " << step.why;
    }
  }
  EXPECT_EQ(found_passes, 2);
  EXPECT_EQ(steps.back().rate, found);  // The confirmation comes last.
  // Every step's whole result is there, histograms included.
  EXPECT_GT(JsonCount(search.json, "steps.0.result.latency_histogram.count"), 0u);
}

// Steps too short to decide lengthen themselves: at 50/s a 1 s step would hold 50 requests,
// too few to show a p99 (299 at 95%), and the search used to end "no rate met" with every
// objective holding. Now the first step is planned at 7.5 s and passes; 100/s passes too.
TEST(SearchE2ETest, LongStepsTooShortToDecideAreLengthened) {
  UringloadServer server({"-t", "1", "--cpus", "1", "--service-slots", "1", "--delay", "4ms"});
  ASSERT_TRUE(server.ok());
  URINGLOAD_RUN_UNLESS_STARVED(search, RunUringloadCommand("search",
                                                           {"--slo",
                                                            "p99<100ms",
                                                            "--slo",
                                                            "error_rate<1%",
                                                            "--start-rate",
                                                            "50",
                                                            "--max-rate",
                                                            "100",
                                                            "--step-duration",
                                                            "1s",
                                                            "--max-step-duration",
                                                            "20s",
                                                            "--warmup",
                                                            "200ms",
                                                            "--cooldown",
                                                            "0s",
                                                            "-c",
                                                            "20",
                                                            "-t",
                                                            "1",
                                                            "--cpus",
                                                            "0",
                                                            "--schedule-lag-bound",
                                                            "20ms",
                                                            server.Url("/")},
                                                           300));
  ASSERT_EQ(search.process.exit_code, 0) << search.process.out << search.process.err;
  EXPECT_EQ(search.json["outcome"], "found");
  // 100/s holds (the server's capacity is 250/s); a loaded machine may still fail the step at
  // 100/s once (a stall of over 100 ms on four responses), and the search then reports the
  // highest rate below it that passed, with the failed step in its record.
  double rate = JsonNumber(search.json, "rate");
  if (rate != 100) {
    bool failed_at_100 = false;
    for (int i = 0; search.json.contains("steps." + std::to_string(i) + ".rate"); ++i) {
      std::string step = "steps." + std::to_string(i) + ".";
      failed_at_100 |=
          JsonNumber(search.json, step + "rate") == 100 && search.json[step + "verdict"] == "fail";
    }
    EXPECT_TRUE(failed_at_100 && rate >= 50) << rate << search.process.out;
  }
  EXPECT_EQ(JsonCount(search.json, "requests_needed.0"), 299u);
  EXPECT_EQ(JsonCount(search.json, "requests_needed.1"), 299u);
  // 299 requests with a quarter more: 7.5 s at 50/s, 3.8 s at 100/s. A loaded machine may
  // delay one response past 100 ms and leave a step undecided; it then runs again twice as long.
  double first = JsonNumber(search.json, "steps.0.planned_seconds");
  EXPECT_TRUE(first == 7.5 || first == 15) << first;
  EXPECT_EQ(search.json["steps.0.verdict"], "pass");
  EXPECT_GE(JsonCount(search.json, "steps.0.slos.0.requests"), 299u);
  double second = JsonNumber(search.json, "steps.1.planned_seconds");
  EXPECT_TRUE(second == 3.8 || second == 7.6) << second;
  // A cap below the step is bad input.
  RunOutput bad = RunUringloadCommand("search", {"--slo", "p99<1s", "--step-duration", "5s",
                                                 "--max-step-duration", "2s", server.Url("/")});
  EXPECT_EQ(bad.process.exit_code, 2);
  EXPECT_NE(bad.process.err.find("--max-step-duration 2s is below --step-duration 5s"),
            std::string::npos)
      << bad.process.err;
}

// The error-rate objective, against a server that answers 0.5% of requests with garbage and
// takes 0-2 ms each (4 slots): 5% is met at the start rate, 0.1% never (exit 3, saying why).
// The latency objective beside it is loose: p99<50ms failed once under ASan in CI, where a
// stall of the VM of tens of milliseconds at 1,000/s delays more than 1% of a 3 s step.
TEST(SearchE2ETest, TheErrorRateObjectiveIsJudgedToo) {
  UringloadServer server({"-t", "1", "--cpus", "1", "--service-slots", "4", "--delay",
                          "uniform:0ms-2ms", "--fault-malformed", "0.005"});
  ASSERT_TRUE(server.ok());
  std::vector<std::string> base = {"--start-rate", "1000", "--max-rate", "1000", "-c", "50"};
  base.insert(base.end(), kQuickSteps.begin(), kQuickSteps.end());
  base.push_back(server.Url("/"));
  std::vector<std::string> loose = {"--slo", "error_rate<5%", "--slo", "p99<500ms"};
  loose.insert(loose.end(), base.begin(), base.end());
  URINGLOAD_RUN_UNLESS_STARVED(met, RunUringloadCommand("search", loose, 120));
  std::string whys;
  for (const Step& step : Steps(met.json)) whys += step.why + "\n";
  ASSERT_EQ(met.process.exit_code, 0) << met.process.err << whys;
  EXPECT_EQ(JsonNumber(met.json, "rate"), 1000);
  EXPECT_GT(JsonCount(met.json, "steps.0.slos.0.beyond"), 0u);  // Errors there were.

  std::vector<std::string> strict = {"--slo", "error_rate<0.1%"};
  strict.insert(strict.end(), base.begin(), base.end());
  URINGLOAD_RUN_UNLESS_STARVED(none, RunUringloadCommand("search", strict, 120));
  EXPECT_EQ(none.process.exit_code, 3) << none.process.err;
  EXPECT_EQ(none.json["outcome"], "none_met");
  EXPECT_EQ(none.json["rate"], "null");
  std::vector<Step> steps = Steps(none.json);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_NE(steps[0].why.find("error_rate<0.1%: "), std::string::npos) << steps[0].why;
}

// A sharded search: each step is a sharded run, so shard 1 of 2 sends half of each rate and
// judges its own requests. At 1,600/s for the fleet it sends 800/s to the 1,000/s server and
// passes; the same search unsharded sends all 1,600 and fails. --start-at holds the first
// step only (a second step made to wait for a moment already past would be refused). The
// objective is loose on purpose: p99<30ms failed the sharded search in 1 CI run of 2 (why was
// not printed; it is now), where stalls of this VM of tens of milliseconds queue requests at
// 800/s; past capacity the queue grows by 600 a second and p99 passes 200 ms within the step.
TEST(SearchE2ETest, AShardSendsAndJudgesItsShareOfEachRate) {
  UringloadServer server({"-t", "1", "--cpus", "1", "--service-slots", "1", "--delay", "1ms"});
  ASSERT_TRUE(server.ok());
  std::vector<std::string> base = {"--slo",      "p99<200ms", "--start-rate", "1600",
                                   "--max-rate", "1600",      "-c",           "50"};
  base.insert(base.end(), kQuickSteps.begin(), kQuickSteps.end());
  std::vector<std::string> sharded = base;
  sharded.insert(sharded.end(), {"--shard", "1/2", "--run-id", "fleet7", "--start-at",
                                 std::to_string(time(nullptr) + 2), server.Url("/")});
  URINGLOAD_RUN_UNLESS_STARVED(half, RunUringloadCommand("search", sharded, 120));
  ASSERT_EQ(half.process.exit_code, 0) << half.process.err << half.process.out;
  EXPECT_EQ(JsonNumber(half.json, "rate"), 1600);
  EXPECT_EQ(JsonCount(half.json, "shard.index"), 1u);
  EXPECT_EQ(JsonCount(half.json, "shard.count"), 2u);
  std::vector<Step> steps = Steps(half.json);
  ASSERT_EQ(steps.size(), 2u);  // The step and its confirmation.
  for (int k = 0; k < 2; ++k) {
    std::string at = "steps." + std::to_string(k);
    EXPECT_NEAR(JsonNumber(half.json, at + ".achieved_rate"), 800, 16) << at;
    EXPECT_EQ(half.json.at(at + ".result.run_id"), "fleet7") << at;
    EXPECT_EQ(JsonCount(half.json, at + ".result.shard.index"), 1u) << at;
  }

  base.push_back(server.Url("/"));
  URINGLOAD_RUN_UNLESS_STARVED(whole, RunUringloadCommand("search", base, 120));
  EXPECT_EQ(whole.process.exit_code, 3) << whole.process.err;
  std::vector<Step> unsharded = Steps(whole.json);
  ASSERT_EQ(unsharded.size(), 1u);
  EXPECT_NE(unsharded[0].why.find("p99<200ms: "), std::string::npos) << unsharded[0].why;
}

}  // namespace
}  // namespace uringload::testing
