#include "core/serve/serve_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace uringload::core {
namespace {

TEST(DelaySpecTest, ParsesEveryForm) {
  EXPECT_EQ(DelaySpec::Parse("0")->kind, DelaySpec::Kind::kNone);
  absl::StatusOr<DelaySpec> fixed = DelaySpec::Parse("50ms");
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->kind, DelaySpec::Kind::kFixed);
  EXPECT_EQ(fixed->a_ns, 50'000'000);
  absl::StatusOr<DelaySpec> uniform = DelaySpec::Parse("uniform:0s-3s");
  ASSERT_TRUE(uniform.ok());
  EXPECT_EQ(uniform->kind, DelaySpec::Kind::kUniform);
  EXPECT_EQ(uniform->b_ns, 3'000'000'000);
  EXPECT_EQ(uniform->a_ns, 0);
  EXPECT_EQ(DelaySpec::Parse("exp:1.5s")->kind, DelaySpec::Kind::kExponential);
  for (const char* bad : {"5x", "uniform:3s", "uniform:3s-1s", "exp:", "-1s", "uniform:a-b"}) {
    EXPECT_FALSE(DelaySpec::Parse(bad).ok()) << bad;
  }
}

TEST(DelaySpecTest, SamplesHaveTheRightRangeAndMean) {
  SeededStream rng(7);
  DelaySpec uniform = *DelaySpec::Parse("uniform:100ms-300ms");
  DelaySpec exp = *DelaySpec::Parse("exp:10ms");
  double sum_u = 0, sum_e = 0;
  constexpr int kN = 200'000;
  for (int i = 0; i < kN; ++i) {
    int64_t u = uniform.SampleNanos(rng);
    ASSERT_GE(u, 100'000'000);
    ASSERT_LE(u, 300'000'000);
    sum_u += u;
    sum_e += exp.SampleNanos(rng);
  }
  EXPECT_NEAR(sum_u / kN, 200e6, 2e6);
  EXPECT_NEAR(sum_e / kN, 10e6, 0.2e6);
}

TEST(FaultPlanTest, DrawsEachKindAtItsRate) {
  FaultPlan plan{.reset = 0.1,
                 .partial = 0.2,
                 .malformed = 0.05,
                 .stall = 0.05,
                 .status = 0.1,
                 .status_code = 500,
                 .no_close_notify = 0.1,
                 .rst_stream = 0.1};
  SeededStream rng(3);
  std::vector<int> counts(kFaultKinds);
  constexpr int kN = 500'000;
  for (int i = 0; i < kN; ++i) counts[static_cast<size_t>(plan.Draw(rng))]++;
  std::vector<double> expected = {0.3, 0.1, 0.2, 0.05, 0.05, 0.1, 0.1, 0.1};
  ASSERT_EQ(expected.size(), kFaultKinds);
  for (size_t f = 0; f < kFaultKinds; ++f) {
    EXPECT_NEAR(counts[f] / double(kN), expected[f], 0.005) << kFaultNames[f];
  }
  EXPECT_EQ(FaultPlan{}.Draw(rng), Fault::kNone);
}

TEST(ServePlanTest, ListenRangesAndValidation) {
  absl::StatusOr<std::vector<net::SocketAddress>> range = ParseListen("127.0.0.1:8080-8083");
  ASSERT_TRUE(range.ok()) << range.status();
  ASSERT_EQ(range->size(), 4u);
  EXPECT_EQ((*range)[3].ToString(), "127.0.0.1:8083");
  EXPECT_EQ((*ParseListen("[::1]:80"))[0].ToString(), "[::1]:80");
  for (const char* bad : {"8080", "127.0.0.1:0", "127.0.0.1:70000", "127.0.0.1:9-8", "x:80x"}) {
    EXPECT_FALSE(ParseListen(bad).ok()) << bad;
  }
  ServeOptions ok;
  absl::StatusOr<ServePlan> plan = MakeServePlan(ok);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->body_mode, ServePlan::BodyMode::kEcho);
  EXPECT_GE(plan->threads * plan->table_size, 60000u);

  std::vector<std::pair<ServeOptions, std::string>> bad;
  ServeOptions o;
  o.fault_reset = 1.5;
  bad.push_back({o, "--fault-reset"});
  o = {};
  o.fault_reset = 0.6;
  o.fault_stall = 0.6;
  bad.push_back({o, "more than 1"});
  o = {};
  o.fault_status_rate = 0.1;
  bad.push_back({o, "--fault-status CODE"});
  o = {};
  o.body = "a";
  o.body_size = 3;
  bad.push_back({o, "--body"});
  o = {};
  o.delay = "fast";
  bad.push_back({o, "--delay"});
  for (const auto& [options, part] : bad) {
    absl::StatusOr<ServePlan> p = MakeServePlan(options);
    ASSERT_FALSE(p.ok()) << part;
    EXPECT_NE(p.status().message().find(part), std::string::npos) << p.status().message();
  }
}

}  // namespace
}  // namespace uringload::core
