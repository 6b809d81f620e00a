#include "exporters/timeline.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "exporters/json_text.h"
#include "exporters/timeline_reader.h"

namespace uringload::exporters {
namespace {

// Three target requests: 0 and 1 are the target "login", 2 is "a,\"b\"" (a name CSV quotes).
const std::vector<std::string> kNames = {"login", "a,\"b\""};

TEST(TimelineTest, EachTargetsIntervalCountsAndLatency) {
  core::WorkerStats stats(3, false, {0, 0, 1});
  core::RunStats t0 = stats.Snapshot();
  stats.RequestSucceeded(200, 5'000'000, 0, 0);
  stats.RequestSucceeded(200, 9'000'000, 0, 1);
  stats.RequestFailed(core::Outcome::kReset, 104, 2);
  core::RunStats t1 = stats.Snapshot();
  stats.RequestSucceeded(200, 2'000'000, 0, 2);
  core::RunStats t2 = stats.Snapshot();

  TimelineRow first = MakeTimelineRow(t0, t1, 1, 1);
  ASSERT_EQ(first.by_target.size(), 2u);
  EXPECT_EQ(first.by_target[0].outcomes[0], 2u);
  EXPECT_EQ(first.by_target[0].latency.count, 2u);
  EXPECT_EQ(first.by_target[1].outcomes[size_t(core::Outcome::kReset)], 1u);
  EXPECT_EQ(first.by_target[1].latency.count, 0u);
  TimelineRow second = MakeTimelineRow(t1, t2, 2, 1);
  EXPECT_EQ(second.by_target[0].completed(), 0u);
  EXPECT_EQ(second.by_target[1].outcomes[0], 1u);
  EXPECT_EQ(second.by_target[1].latency.max, 2'000'000u);
  // A first snapshot taken before the targets were tracked counts from zero.
  TimelineRow from_nothing = MakeTimelineRow(core::RunStats{}, t2, 2, 2);
  EXPECT_EQ(from_nothing.by_target[1].completed(), 2u);

  Json j = Json::parse(FormatTimelineRow(first, false, kNames));
  ASSERT_EQ(j["by_target"].size(), 2u);
  EXPECT_EQ(j["by_target"][0]["name"], "login");
  EXPECT_EQ(j["by_target"][0]["ok"], 2);
  EXPECT_EQ(j["by_target"][0]["rps"], 2.0);
  EXPECT_NEAR(j["by_target"][0]["max"].get<double>(), 0.009, 1e-9);
  EXPECT_EQ(j["by_target"][1]["reset"], 1);
  EXPECT_TRUE(j["by_target"][1]["p50"].is_null());  // Nothing ok.
  EXPECT_TRUE(j["by_target"][1]["mean"].is_null());
  // The mean is the histogram's sum over its count: exact, where the quantiles are buckets.
  EXPECT_NEAR(j["by_target"][0]["mean"].get<double>(), 0.007, 1e-12);
  EXPECT_NEAR(j["mean"].get<double>(), 0.007, 1e-12);
  EXPECT_EQ(Json::parse(FormatTimelineRow(first, false)).count("by_target"), 0u);
}

// The workers' wait for a CPU, a cgroup's throttling and responses left unread in the
// interval, from the snapshots' cumulative figures.
TEST(TimelineTest, EachRowSaysHowLongTheClientWaitedForACpu) {
  core::RunStats before;
  core::RunStats after;
  before.generator.run_queue_ns = 1'000'000'000;
  after.generator.run_queue_ns = 1'750'000'000;
  after.generator.throttled_ns = 250'000'000;
  before.generator.unread_ns = 100'000'000;
  after.generator.unread_ns = 600'000'000;
  TimelineRow row = MakeTimelineRow(before, after, 2, 1);
  EXPECT_DOUBLE_EQ(row.run_queue_seconds, 0.75);
  EXPECT_DOUBLE_EQ(row.throttled_seconds, 0.25);
  EXPECT_DOUBLE_EQ(row.unread_seconds, 0.5);
  Json j = Json::parse(FormatTimelineRow(row, false));
  EXPECT_DOUBLE_EQ(j["run_queue_seconds"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["throttled_seconds"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["unread_seconds"].get<double>(), 0.5);
  std::string csv = FormatTimelineRow(row, true);
  // No mean, no time to the head or the first byte.
  EXPECT_NE(csv.find(",0.750000,0.250000,0.500000,,,,,\n"), std::string::npos) << csv;
  EXPECT_NE(TimelineCsvHeader().find(",connections_open,run_queue_seconds,throttled_seconds,"
                                     "unread_seconds,mean,head_p50,head_p99,ttfb_p50,ttfb_p99\n"),
            std::string::npos);
}

TEST(TimelineTest, CsvHasAColumnGroupPerTargetAndTheReaderSkipsThem) {
  core::WorkerStats stats(3, false, {0, 0, 1});
  core::RunStats t0 = stats.Snapshot();
  stats.RequestSucceeded(200, 5'000'000, 0, 1);
  stats.RequestFailed(core::Outcome::kTimeout, 0, 2);
  std::string header = TimelineCsvHeader(kNames);
  std::string row = FormatTimelineRow(MakeTimelineRow(t0, stats.Snapshot(), 1, 1), true, kNames);
  EXPECT_NE(header.find(",login:completed,login:ok,"), std::string::npos) << header;
  EXPECT_NE(header.find(",\"a,\"\"b\"\":completed\","), std::string::npos) << header;
  // Every row has as many cells as the header has columns (the quoted name is one).
  std::vector<std::string> cells = absl::StrSplit(row.substr(0, row.size() - 1), ',');
  EXPECT_EQ(cells.size(), 25u + 2 * 13u);  // The run's 25, then 13 per target.
  EXPECT_EQ(cells[20], "0.005000000");     // The run's mean
  EXPECT_EQ(cells[25], "1");               // login:completed
  EXPECT_EQ(cells[26], "1");               // login:ok
  EXPECT_EQ(cells[37], "0.005000000");     // login:mean
  EXPECT_EQ(cells[38], "1");               // a,"b":completed
  EXPECT_EQ(cells[40], "1");               // a,"b":timeout
  EXPECT_EQ(cells[50], "");                // a,"b":mean (nothing ok)

  absl::StatusOr<std::vector<TimelinePoint>> points = ReadTimeline(header + row, "t.csv");
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].outcomes[0], 1u);
  EXPECT_EQ((*points)[0].outcomes[size_t(core::Outcome::kTimeout)], 1u);
}

// The times to the head and to the first byte of the interval's ok responses, not the run's.
TEST(TimelineTest, HeadAndFirstByteAreTheIntervalsOwn) {
  core::WorkerStats stats;
  stats.RequestSucceeded(200, 9'000'000);
  stats.ResponseArrived(8'000'000, 8'500'000);
  core::RunStats t1 = stats.Snapshot();
  stats.RequestSucceeded(200, 3'000'000);
  stats.ResponseArrived(1'000'000, 2'000'000);
  stats.RequestSucceeded(204, 1'000'000);
  stats.ResponseArrived(1'000'000, std::nullopt);  // No body: no first byte.
  TimelineRow row = MakeTimelineRow(t1, stats.Snapshot(), 2, 1);
  ASSERT_EQ(row.histograms.size(), 2u);
  EXPECT_NEAR(*row.histograms[0][1], 0.001, 0.0001);  // head_p99
  EXPECT_NEAR(*row.histograms[1][0], 0.002, 0.0001);  // ttfb_p50
  Json j = Json::parse(FormatTimelineRow(row, false));
  EXPECT_NEAR(j["ttfb_p99"].get<double>(), 0.002, 0.0001);
  std::vector<std::string> cells = absl::StrSplit(FormatTimelineRow(row, true), ',');
  EXPECT_NEAR(std::stod(cells[21]), 0.001, 0.0001);  // head_p50
  EXPECT_NEAR(std::stod(cells[24]), 0.002, 0.0001);  // ttfb_p99
  EXPECT_TRUE(MakeTimelineRow(t1, t1, 1, 1).histograms[0][0] == std::nullopt);
}

}  // namespace
}  // namespace uringload::exporters
