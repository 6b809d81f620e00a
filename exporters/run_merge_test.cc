#include "exporters/run_merge.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <random>

#include "exporters/html_report.h"
#include "exporters/json_text.h"
#include "exporters/run_json_reader.h"

namespace uringload::exporters {
namespace {

// One shard's result: `fast` ok requests around 1 ms, `slow` around 100 ms, plus failures.
core::RunResult ShardResult(int fast, int slow, uint32_t seed) {
  core::WorkerStats stats(/*targets=*/2, /*open_model=*/false, /*target_of=*/{0, 1});
  std::mt19937 random(seed);
  std::uniform_int_distribution<uint64_t> jitter(0, 500'000);
  for (int i = 0; i < fast + slow + 3; ++i) stats.RequestStarted();
  for (int i = 0; i < fast; ++i) stats.RequestSucceeded(200, 1'000'000 + jitter(random), 0, 0);
  for (int i = 0; i < slow; ++i) stats.RequestSucceeded(503, 100'000'000 + jitter(random), 0, 1);
  stats.RequestFailed(core::Outcome::kConnectError, ECONNREFUSED, 0);
  stats.RequestFailed(core::Outcome::kTimeout, 0, 1);
  stats.RequestFailed(core::Outcome::kParseError,
                      static_cast<int>(core::ParseFailure::kHeadersTooLarge), 1);
  stats.BytesSent(100 * seed);
  stats.Connected(50'000 * seed);
  // HTTP/2: a connection of the two, a stream reset with its code, a resend, the server's cap.
  stats.ConnectionOpened();
  stats.ConnectionOpened();
  stats.Http2Connected();
  stats.RequestStarted();
  stats.RequestFailed(core::Outcome::kReset, core::Http2Cause(7), 0);
  stats.RequestRetried();
  stats.StreamsCapped(4 + seed);
  core::RunResult result;
  result.stats = stats.Snapshot();
  core::LatencyHistogram lag;  // The client's own numbers (written only under -R).
  for (int i = 0; i < fast; ++i) lag.Record(2'000 * seed + jitter(random) / 100);
  core::GeneratorStats& g = result.stats.generator;
  g.schedule_lag = lag.Snapshot();
  g.unsent = seed;
  g.busy_ns = 1'000'000'000ull * seed;
  g.wall_ns = 10'000'000'000ull;
  g.busiest_share = 0.1 * seed;
  g.cpu_user_ns = 1'500'000'000ull * seed;
  g.cpu_system_ns = 250'000'000ull * seed;
  result.started_at = absl::FromUnixSeconds(1'000'000 + seed);
  result.ended_at = result.started_at + absl::Seconds(10);
  result.duration = absl::Seconds(10);
  return result;
}

core::RunPlan TwoTargets() {
  core::RunPlan plan;
  plan.targets = {{.line = 1, .method = "GET", .url = "http://h/a", .parsed = {}, .spec = {}},
                  {.line = 2, .method = "POST", .url = "http://h/b", .parsed = {}, .spec = {}}};
  plan.target_names = {"GET http://h/a", "checkout"};
  plan.target_of = {0, 1};
  plan.busy_poll = true;
  return plan;
}

RunResultFile WriteAndRead(const core::RunResult& result, uint32_t k, uint32_t count,
                           const std::string& run_id) {
  core::RunPlan plan = TwoTargets();
  RunReport report{.target = "targets.txt",
                   .run_id = run_id,
                   .shard = {.index = k, .count = count},
                   .planned = result.stats.started,
                   .concurrency = 10,
                   .threads = 1,
                   .result = &result,
                   .plan = &plan,
                   .batch_window_max = absl::Microseconds(200 + 100 * k)};
  absl::StatusOr<RunResultFile> file =
      ReadRunResult(RunResultToJson(report), "shard" + std::to_string(k));
  EXPECT_TRUE(file.ok()) << file.status();
  return *file;
}

// Shard 0 is fast, shard 1 slow: the merged p99 is the one of all requests together, from
// the summed buckets, not the mean of the shards' p99s.
TEST(RunMergeTest, EqualsOneProcessExactly) {
  core::RunResult a = ShardResult(9'900, 100, 1);
  core::RunResult b = ShardResult(5'000, 5'000, 2);
  absl::StatusOr<MergedRun> merged =
      MergeRunResults({WriteAndRead(b, 1, 2, "r"), WriteAndRead(a, 0, 2, "r")});
  ASSERT_TRUE(merged.ok()) << merged.status();
  core::RunStats one = a.stats;
  one.Merge(b.stats);
  const core::RunStats& m = merged->result.stats;
  EXPECT_EQ(m.started, one.started);
  EXPECT_EQ(m.outcomes, one.outcomes);
  EXPECT_EQ(m.status_codes, one.status_codes);
  EXPECT_EQ(m.causes, one.causes);  // Parse failures keep their kind through the JSON.
  EXPECT_EQ(m.bytes_sent, one.bytes_sent);
  EXPECT_EQ(m.target_ok, one.target_ok);
  EXPECT_EQ(m.target_failed, one.target_failed);
  // Per target: outcomes, status codes and the latency histogram, each added up exactly.
  ASSERT_EQ(m.by_target.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    EXPECT_EQ(m.by_target[t].outcomes, one.by_target[t].outcomes) << t;
    EXPECT_EQ(m.by_target[t].status_codes, one.by_target[t].status_codes) << t;
    EXPECT_EQ(m.by_target[t].latency.counts, one.by_target[t].latency.counts) << t;
  }
  EXPECT_EQ(m.by_target[1].status_codes[503], 5'100u);
  EXPECT_EQ(m.by_target[1].outcomes[size_t(core::Outcome::kTimeout)], 2u);
  EXPECT_EQ(m.latency.counts, one.latency.counts);
  EXPECT_EQ(m.latency.sum, one.latency.sum);
  EXPECT_EQ(m.latency.min, one.latency.min);
  EXPECT_EQ(m.latency.max, one.latency.max);
  EXPECT_EQ(m.connect.counts, one.connect.counts);
  EXPECT_EQ(m.generator.schedule_lag.counts, one.generator.schedule_lag.counts);
  EXPECT_EQ(m.generator.unsent, 3u);
  EXPECT_EQ(m.generator.busy_ns, one.generator.busy_ns);
  EXPECT_TRUE(merged->plan.busy_poll);  // Read back from the shards' JSON.
  EXPECT_EQ(m.generator.wall_ns, 20'000'000'000u);
  EXPECT_DOUBLE_EQ(m.generator.busiest_share, 0.2);  // The busiest worker of all shards.
  EXPECT_EQ(m.generator.cpu_user_ns, 4'500'000'000u);
  EXPECT_EQ(m.generator.cpu_system_ns, 750'000'000u);
  EXPECT_EQ(m.connections_opened, 4u);
  EXPECT_EQ(m.connections_http2, 2u);
  EXPECT_EQ(m.retried, 2u);
  EXPECT_EQ(m.streams_capped_at, 5u);  // The fewer of the shards' caps.
  EXPECT_EQ(m.causes[size_t(core::Outcome::kReset)][core::Http2Cause(7)], 2u);
  for (double q : {0.5, 0.9, 0.99, 0.999})
    EXPECT_EQ(m.latency.Quantile(q), one.latency.Quantile(q));
  double mean_of_p99s = (a.stats.latency.Quantile(0.99) + b.stats.latency.Quantile(0.99)) / 2.0;
  EXPECT_GT(static_cast<double>(m.latency.Quantile(0.99)), 1.5 * mean_of_p99s);
  // From the earliest start to the latest end; the planned counts add up.
  EXPECT_EQ(merged->result.duration, absl::Seconds(11));
  EXPECT_EQ(merged->planned, one.started);
  EXPECT_EQ(merged->concurrency, 20u);
  Json j = Json::parse(RunResultToJson(merged->Report()));
  EXPECT_EQ(j["merged_shards"], 2);
  // Each shard waited its own batch window: a merge has no single one.
  EXPECT_TRUE(j["batch_window_max_seconds"].is_null()) << j["batch_window_max_seconds"];
  absl::StatusOr<RunResultFile> back = ReadRunResult(j.dump(), "merged.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->merged_shards, 2u);
  EXPECT_NE(HtmlReport(*back, {}).find("<tr><th>merged</th><td>2 shards</td></tr>"),
            std::string::npos);
  EXPECT_EQ(j["targets"][1]["url"], "http://h/b");
  EXPECT_EQ(j["targets"][1]["requests"], one.target_ok[1] + one.target_failed[1]);
  EXPECT_EQ(j["by_target"][1]["name"], "checkout");
  EXPECT_EQ(j["by_target"][1]["requests"], one.by_target[1].requests());
}

// The shards' arrivals stay what they were (each drew its own gaps): a merge of Poisson
// shards says poisson, not the even schedule.
TEST(RunMergeTest, KeepsTheShardsArrivals) {
  std::vector<RunResultFile> files;
  for (uint32_t k = 0; k < 2; ++k) {
    core::RunResult result;
    result.started_at = absl::FromUnixSeconds(1'000'000);
    result.ended_at = result.started_at + absl::Seconds(1);
    result.duration = absl::Seconds(1);
    core::RunPlan plan;
    plan.rate = 10;
    plan.arrival = *core::ParseArrival("gamma:0.5");
    RunReport report{.target = "http://h/",
                     .run_id = "r",
                     .shard = {.index = k, .count = 2},
                     .planned = 0,
                     .result = &result,
                     .plan = &plan};
    absl::StatusOr<RunResultFile> file = ReadRunResult(RunResultToJson(report), "shard");
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_EQ(file->arrival, "gamma:0.5");
    files.push_back(*file);
  }
  absl::StatusOr<MergedRun> merged = MergeRunResults(files);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(Json::parse(RunResultToJson(merged->Report()))["arrival"], "gamma:0.5");
}

TEST(RunMergeTest, NamesMissingShardsAndRefusesMixedRuns) {
  core::RunResult a = ShardResult(10, 0, 1);
  absl::StatusOr<MergedRun> missing =
      MergeRunResults({WriteAndRead(a, 0, 4, "r"), WriteAndRead(a, 2, 4, "r")});
  ASSERT_TRUE(absl::IsNotFound(missing.status()));
  EXPECT_EQ(missing.status().message(), "run 'r': shards 1, 3 of 4 missing");
  absl::StatusOr<MergedRun> mixed =
      MergeRunResults({WriteAndRead(a, 0, 2, "r"), WriteAndRead(a, 1, 2, "s")});
  EXPECT_TRUE(absl::IsInvalidArgument(mixed.status())) << mixed.status();
  absl::StatusOr<MergedRun> counts =
      MergeRunResults({WriteAndRead(a, 0, 2, "r"), WriteAndRead(a, 1, 3, "r")});
  EXPECT_TRUE(absl::IsInvalidArgument(counts.status())) << counts.status();
}

TEST(RunMergeTest, ReaderRefusesOtherLayoutsAndDocuments) {
  core::RunResult a = ShardResult(10, 0, 1);
  core::RunPlan plan = TwoTargets();
  RunReport report{.target = "t",
                   .run_id = "r",
                   .planned = 13,
                   .concurrency = 1,
                   .threads = 1,
                   .result = &a,
                   .plan = &plan};
  Json j = Json::parse(RunResultToJson(report));
  j["latency_histogram"]["layout"] = "something-else";
  absl::StatusOr<RunResultFile> file = ReadRunResult(j.dump(), "x.json");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("layout"), std::string::npos) << file.status();
  EXPECT_FALSE(ReadRunResult("{\"target\": 1}", "y.json").ok());
  EXPECT_FALSE(ReadRunResult("not json", "z.json").ok());
}

}  // namespace
}  // namespace uringload::exporters
