#include "exporters/run_report.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace uringload::exporters {
namespace {

core::RunResult SampleResult() {
  core::WorkerStats stats;
  for (int i = 0; i < 4; ++i) stats.RequestStarted();
  stats.RequestEnded(core::Outcome::kOk);
  stats.ResponseReceived(200, 2'000'000);
  stats.RequestEnded(core::Outcome::kOk);
  stats.ResponseReceived(404, 4'000'000);
  stats.RequestEnded(core::Outcome::kConnectError, ECONNREFUSED);
  stats.RequestEnded(core::Outcome::kTimeout);
  core::RunResult result;
  result.stats = stats.Snapshot();
  result.duration = absl::Seconds(2);
  return result;
}

TEST(RunReportTest, JsonHasTheDocumentedKeys) {
  core::RunResult result = SampleResult();
  RunReport report{
      .target = "http://x/", .planned = 4, .concurrency = 2, .threads = 1, .result = &result};
  std::string json = RunResultToJson(report);
  for (const char* part :
       {"\"planned\": 4", "\"started\": 4", "\"completed\": 4", "\"ok\": 2", "\"timeout\": 1",
        "\"connect_error\": 1", "\"reset\": 0", "\"parse_error\": 0", "\"200\": 1", "\"404\": 1",
        "\"duration_seconds\": 2", "\"requests_per_second\": 2", "\"p999\":", "\"max\": 0.004",
        "\"sent\": 0", "\"opened\": 0", "\"peak\": 0", "\"interrupted\": false",
        "\"message\": \"Connection refused\""}) {
    EXPECT_NE(json.find(part), std::string::npos) << part << "\n" << json;
  }
}

TEST(RunReportTest, SummaryShowsOutcomesStatusesAndErrorCauses) {
  core::RunResult result = SampleResult();
  RunReport report{.target = "http://x/",
                   .planned = std::nullopt,
                   .concurrency = 2,
                   .threads = 1,
                   .result = &result};
  std::string text = FormatRunSummary(report);
  for (const char* part : {"4 completed of 4 started", "ok 2", "200: 1", "404: 1",
                           "connect_error: 1 (Connection refused)", "timeout: 1 (no complete"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
  EXPECT_NE(FormatProgress(result.stats, absl::Seconds(1), 10).find("4/10"), std::string::npos);
}

}  // namespace
}  // namespace uringload::exporters
