#include "core/run/shard.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/run/run_plan.h"

namespace uringload::core {
namespace {

EnvironmentReader Env(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ShardTest, ParsesKOfS) {
  absl::StatusOr<Shard> shard = ParseShard("2/5");
  ASSERT_TRUE(shard.ok()) << shard.status();
  EXPECT_EQ(shard->index, 2u);
  EXPECT_EQ(shard->count, 5u);
  for (const char* bad : {"5/5", "-1/3", "1/0", "1", "a/b", "1/2/3", "", "0/100001"}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
}

TEST(ShardTest, SharesAddUpExactlyAndDifferByAtMostOne) {
  for (uint64_t total : {1ull, 7ull, 10ull, 1000ull, 999'999'999'999'999ull}) {
    for (uint32_t count : {1u, 2u, 3u, 7u, 64u}) {
      uint64_t sum = 0;
      uint64_t lowest = ~0ull;
      uint64_t highest = 0;
      for (uint32_t k = 0; k < count; ++k) {
        Shard shard{.index = k, .count = count};
        EXPECT_EQ(ShareBegin(total, shard), sum) << total << " " << k << "/" << count;
        sum += ShareOf(total, shard);
        lowest = std::min(lowest, ShareOf(total, shard));
        highest = std::max(highest, ShareOf(total, shard));
      }
      EXPECT_EQ(sum, total) << total << " over " << count;
      EXPECT_LE(highest - lowest, 1u);
    }
  }
}

TEST(ShardTest, AutoReadsSlurmThenKubernetes) {
  absl::StatusOr<Shard> slurm =
      ShardFromEnvironment(std::nullopt, Env({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}}));
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->index, 3u);
  EXPECT_EQ(slurm->count, 4u);
  absl::StatusOr<Shard> k8s = ShardFromEnvironment(6, Env({{"JOB_COMPLETION_INDEX", "5"}}));
  ASSERT_TRUE(k8s.ok()) << k8s.status();
  EXPECT_EQ(k8s->index, 5u);
  EXPECT_EQ(k8s->count, 6u);
}

TEST(ShardTest, AutoRefusesAMissingOrInconsistentEnvironment) {
  EXPECT_FALSE(ShardFromEnvironment(std::nullopt, Env({})).ok());
  EXPECT_FALSE(ShardFromEnvironment(std::nullopt, Env({{"SLURM_PROCID", "0"}})).ok());
  EXPECT_FALSE(
      ShardFromEnvironment(std::nullopt, Env({{"SLURM_PROCID", "4"}, {"SLURM_NTASKS", "4"}})).ok());
  EXPECT_FALSE(ShardFromEnvironment(3, Env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}})).ok());
  EXPECT_FALSE(ShardFromEnvironment(std::nullopt, Env({{"JOB_COMPLETION_INDEX", "1"}})).ok());
  EXPECT_FALSE(ShardFromEnvironment(2, Env({{"JOB_COMPLETION_INDEX", "2"}})).ok());
  EXPECT_FALSE(ShardFromEnvironment(2, Env({{"JOB_COMPLETION_INDEX", "x"}})).ok());
}

TEST(ShardTest, StartAtTakesUnixSecondsOrRfc3339InTheNext24Hours) {
  absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  absl::StatusOr<absl::Time> unix_seconds = ParseStartAt("1800000010.5", now);
  ASSERT_TRUE(unix_seconds.ok()) << unix_seconds.status();
  EXPECT_EQ(*unix_seconds, now + absl::Seconds(10.5));
  absl::StatusOr<absl::Time> rfc3339 = ParseStartAt("2027-01-15T08:00:10Z", now);
  ASSERT_TRUE(rfc3339.ok()) << rfc3339.status();
  EXPECT_EQ(*rfc3339, now + absl::Seconds(10));
  EXPECT_FALSE(ParseStartAt("1799999999", now).ok());  // Passed.
  EXPECT_FALSE(ParseStartAt("1800000000", now).ok());  // Now is too late too.
  EXPECT_FALSE(ParseStartAt("1800090000", now).ok());  // 25 hours away.
  EXPECT_FALSE(ParseStartAt("tomorrow", now).ok());
  EXPECT_FALSE(ParseStartAt("2027-01-15 08:00:10", now).ok());
}

RunOptions Sharded(const std::string& shard) {
  RunOptions o;
  o.url = "http://127.0.0.1:8080/{i}";
  o.shard = shard;
  return o;
}

// The shards of -n 10 -c 4 -R 9 cover indexes 0..9 once, 4 connections and 9/s in total.
TEST(ShardPlanTest, SplitsRequestsConnectionsAndRate) {
  std::set<uint64_t> indexes;
  uint32_t connections = 0;
  double rate = 0;
  for (int k = 0; k < 3; ++k) {
    RunOptions o = Sharded(std::to_string(k) + "/3");
    o.requests = 10;
    o.concurrency = 4;
    o.rate = "9";
    absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (uint64_t local = 0; local < *plan->requests; ++local) {
      EXPECT_TRUE(indexes.insert(plan->GlobalIndex(local)).second);
    }
    connections += plan->concurrency;
    rate += *plan->rate;
  }
  EXPECT_EQ(indexes.size(), 10u);
  EXPECT_EQ(*indexes.rbegin(), 9u);
  EXPECT_EQ(connections, 4u);
  EXPECT_DOUBLE_EQ(rate, 9.0);
}

TEST(ShardPlanTest, DurationRunsInterleaveIndexes) {
  RunOptions o = Sharded("1/4");
  o.duration = "1s";
  absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->requests.has_value());
  EXPECT_EQ(plan->GlobalIndex(0), 1u);
  EXPECT_EQ(plan->GlobalIndex(2), 9u);
  EXPECT_EQ(plan->concurrency, 25u);
}

TEST(ShardPlanTest, RefusesAShardWithNothingToDo) {
  RunOptions few = Sharded("0/3");
  few.requests = 2;  // Shard 0 of 3 gets floor(2/3) = 0 requests.
  absl::StatusOr<RunPlan> plan = MakeRunPlan(few);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(), "-n 2 over 3 shards leaves shard 0 with none");
  RunOptions narrow = Sharded("0/3");
  narrow.concurrency = 2;
  narrow.duration = "1s";
  EXPECT_FALSE(MakeRunPlan(narrow).ok());
}

}  // namespace
}  // namespace uringload::core
