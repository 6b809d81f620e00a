#include "exporters/html_report.h"

#include <gtest/gtest.h>

#include <regex>

#include "exporters/run_report.h"
#include "exporters/svg_chart.h"
#include "exporters/timeline.h"

namespace uringload::exporters {
namespace {

// The number of points each chart drew, by chart id.
std::map<std::string, int> ChartPoints(const std::string& html) {
  std::map<std::string, int> points;
  std::regex chart("<svg id=\"([a-z-]+)\" class=\"chart\" data-points=\"([0-9]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), chart);
       it != std::sregex_iterator(); ++it) {
    points[(*it)[1]] = std::stoi((*it)[2]);
  }
  return points;
}

RunResultFile SampleRun() {
  core::WorkerStats stats;
  for (int i = 0; i < 6; ++i) stats.RequestStarted();
  for (uint64_t ms : {1, 2, 2, 40, 900}) {
    stats.RequestSucceeded(200, ms * 1'000'000);
    stats.ResponseArrived(ms * 500'000, ms == 1 ? std::nullopt : std::optional(ms * 800'000));
  }
  stats.RequestFailed(core::Outcome::kReset, 104);
  core::RunResult result;
  result.stats = stats.Snapshot();
  result.started_at = absl::FromUnixSeconds(1'800'000'000);
  result.ended_at = result.started_at + absl::Seconds(3);
  result.duration = absl::Seconds(3);
  RunReport report{.target = "http://host/<x>&{i}",
                   .run_id = "r1",
                   .planned = 6,
                   .concurrency = 2,
                   .threads = 1,
                   .result = &result};
  absl::StatusOr<RunResultFile> file = ReadRunResult(RunResultToJson(report), "sample.json");
  EXPECT_TRUE(file.ok()) << file.status();
  return *file;
}

TEST(HtmlReportTest, TablesAndEveryChartFromTheResultAndTimeline) {
  // Two timeline rows, as `run --timeline` writes them, read back.
  core::WorkerStats stats;
  core::RunStats t0 = stats.Snapshot();
  for (int i = 0; i < 3; ++i) stats.RequestStarted();
  stats.RequestSucceeded(200, 5'000'000);
  stats.RequestFailed(core::Outcome::kReset, 104);
  core::RunStats t1 = stats.Snapshot();
  stats.RequestSucceeded(200, 7'000'000);
  core::RunStats t2 = stats.Snapshot();
  std::string ndjson = FormatTimelineRow(MakeTimelineRow(t0, t1, 1.0, 1.0), false) +
                       FormatTimelineRow(MakeTimelineRow(t1, t2, 2.0, 1.0), false);
  absl::StatusOr<std::vector<TimelinePoint>> timeline = ReadTimeline(ndjson, "t.ndjson");
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  ASSERT_EQ(timeline->size(), 2u);
  EXPECT_EQ((*timeline)[1].outcomes[0], 1u);
  EXPECT_TRUE((*timeline)[1].latency[0].has_value());

  std::string html = HtmlReport(SampleRun(), *timeline);
  EXPECT_NE(html.find("http://host/&lt;x&gt;&amp;{i}"), std::string::npos);  // Escaped.
  EXPECT_NE(html.find("<td>reset</td><td>Connection reset by peer</td><td>1</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>200</td><td>5</td></tr>"), std::string::npos);
  std::map<std::string, int> points = ChartPoints(html);
  EXPECT_EQ(points["throughput"], 4);         // ok and reset, 2 intervals each.
  EXPECT_EQ(points["latency-over-time"], 8);  // p50, p90, p99, max.
  EXPECT_EQ(points["connections"], 4);
  EXPECT_EQ(points["histogram"], 4);  // 1, 2, 40 and 900 ms: four buckets.
  // The times to the head (all five) and to the first byte (four had a body), charted alike.
  EXPECT_EQ(points["histogram-head"], 4);
  EXPECT_EQ(points["histogram-ttfb"], 3);
  EXPECT_NE(html.find("<th>to the body's first byte p50 / p90 / p99 / max</th>"),
            std::string::npos);
  // Self-contained: nothing is fetched when it opens.
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find(" href="), std::string::npos);
}

TEST(HtmlReportTest, PerTargetResultsGetATable) {
  core::WorkerStats stats(/*targets=*/2, /*open_model=*/false, /*target_of=*/{0, 1});
  for (int i = 0; i < 4; ++i) stats.RequestStarted();
  stats.RequestSucceeded(200, 2'000'000, 0, 0);
  stats.RequestSucceeded(503, 3'000'000, 0, 1);
  stats.RequestSucceeded(200, 3'000'000, 0, 1);
  stats.RequestFailed(core::Outcome::kTimeout, 0, 1);
  core::RunResult result;
  result.stats = stats.Snapshot();
  result.started_at = absl::FromUnixSeconds(1'800'000'000);
  result.ended_at = result.started_at + absl::Seconds(1);
  result.duration = absl::Seconds(1);
  core::RunPlan plan;
  plan.targets = {{.line = 1, .method = "GET", .url = "http://h/a", .parsed = {}, .spec = {}},
                  {.line = 2, .method = "GET", .url = "http://h/b", .parsed = {}, .spec = {}}};
  plan.target_names = {"login", "<b>"};
  plan.target_of = {0, 1};
  RunReport report{.target = "t.txt",
                   .run_id = "r",
                   .planned = 4,
                   .concurrency = 1,
                   .threads = 1,
                   .result = &result,
                   .plan = &plan};
  absl::StatusOr<RunResultFile> file = ReadRunResult(RunResultToJson(report), "t.json");
  ASSERT_TRUE(file.ok()) << file.status();
  std::string html = HtmlReport(*file, {});
  EXPECT_NE(html.find("<h2>Per target</h2>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>login</td><td>1</td><td>100.00%</td>"), std::string::npos) << html;
  // Escaped; 3 requests, 2 ok, 1 failed, 1 non-2xx.
  EXPECT_NE(html.find("<tr><td>&lt;b&gt;</td><td>3</td><td>66.67%</td>"), std::string::npos);
  EXPECT_NE(html.find("</td><td>1</td><td>1</td></tr>"), std::string::npos);
  EXPECT_EQ(HtmlReport(SampleRun(), {}).find("Per target"), std::string::npos);
}

TEST(HtmlReportTest, WithoutATimelineSaysHowToGetOne) {
  std::string html = HtmlReport(SampleRun(), {});
  EXPECT_NE(html.find("--timeline FILE"), std::string::npos);
  EXPECT_EQ(ChartPoints(html).size(), 3u);  // The histograms only: latency, head, first byte.
}

TEST(HtmlReportTest, TimelineReaderTakesCsvAndRefusesOtherFiles) {
  core::WorkerStats stats;
  core::RunStats t0 = stats.Snapshot();
  stats.RequestStarted();
  stats.RequestSucceeded(200, 3'000'000);
  std::string csv =
      TimelineCsvHeader() + FormatTimelineRow(MakeTimelineRow(t0, stats.Snapshot(), 1, 1), true);
  absl::StatusOr<std::vector<TimelinePoint>> rows = ReadTimeline(csv, "t.csv");
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].outcomes[0], 1u);
  absl::StatusOr<std::vector<TimelinePoint>> bad = ReadTimeline("{\"t\": 1}\n", "x.ndjson");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "x.ndjson:1: not a uringload --timeline record");
}

TEST(SvgChartTest, LogAxesSkipNonPositiveValuesAndTextIsEscaped) {
  std::string svg =
      SvgChart({.id = "c",
                .title = "a<b",
                .x_label = "x",
                .y_label = "y",
                .log_x = true,
                .log_y = false,
                .bars = true},
               {{.name = "s&t", .color = "#000", .points = {{0, 1}, {1, 2}, {10, 3}}}});
  EXPECT_NE(svg.find("data-points=\"2\""), std::string::npos);
  EXPECT_NE(svg.find("a&lt;b"), std::string::npos);
  EXPECT_NE(svg.find("s&amp;t"), std::string::npos);
}

}  // namespace
}  // namespace uringload::exporters
