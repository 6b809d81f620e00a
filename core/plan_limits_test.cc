#include "core/plan_limits.h"

#include <gtest/gtest.h>

#include "core/run/run_plan.h"
#include "core/serve/serve_plan.h"

namespace uringload::core {
namespace {

TEST(PlanLimitsTest, PinnedThreadsAreAMultipleOfTheCpuList) {
  EXPECT_EQ(EvenOverCpus(19, 2), 20u);
  EXPECT_EQ(EvenOverCpus(20, 2), 20u);
  EXPECT_EQ(EvenOverCpus(7, 3), 9u);
  EXPECT_EQ(EvenOverCpus(7, 1), 7u);
  EXPECT_EQ(EvenOverCpus(7, 0), 7u);  // Not pinned: any count.
}

// Both plans choose an even count when pinned to two CPUs and more than two rings are needed
// (300,000 connections at RLIMIT_NOFILE 20,000: 19 server tables with headroom, 15 client ones).
TEST(PlanLimitsTest, PlansPinnedToTwoCpusChooseAnEvenThreadCount) {
  if (OnlineCpus() < 2) GTEST_SKIP() << "needs 2 CPUs for --cpus 0-1";
  ServeOptions serve;
  serve.cpus = "0-1";
  serve.max_connections = 15 * int64_t{DescriptorTableLimit()};
  absl::StatusOr<ServePlan> served = MakeServePlan(serve);
  ASSERT_TRUE(served.ok()) << served.status();
  EXPECT_EQ(served->threads % 2, 0u);
  EXPECT_GE(served->threads, 19u);

  RunOptions run;
  run.url = "http://127.0.0.1:8080/";
  run.cpus = "0-1";
  run.concurrency = 15 * int64_t{DescriptorTableLimit()};
  run.requests = run.concurrency;
  absl::StatusOr<RunPlan> planned = MakeRunPlan(run);
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_EQ(planned->threads, 16u);
  // Told explicitly, the count is kept.
  run.threads = 15;
  planned = MakeRunPlan(run);
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_EQ(planned->threads, 15u);
}

}  // namespace
}  // namespace uringload::core
