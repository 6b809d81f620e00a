#include "exporters/run_report.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "exporters/json_text.h"
#include "exporters/live_status.h"

namespace uringload::exporters {
namespace {

core::RunResult SampleResult() {
  core::WorkerStats stats;
  for (int i = 0; i < 4; ++i) stats.RequestStarted();
  stats.RequestSucceeded(200, 2'000'000);
  stats.RequestSucceeded(404, 4'000'000);
  stats.RequestFailed(core::Outcome::kConnectError, ECONNREFUSED);
  stats.RequestFailed(core::Outcome::kTimeout);
  core::RunResult result;
  result.stats = stats.Snapshot();
  result.duration = absl::Seconds(2);
  return result;
}

TEST(RunReportTest, JsonHasTheDocumentedKeys) {
  core::RunResult result = SampleResult();
  RunReport report{
      .target = "http://x/", .planned = 4, .concurrency = 2, .threads = 1, .result = &result};
  Json j = Json::parse(RunResultToJson(report));
  EXPECT_EQ(j["requests"]["planned"], 4);
  EXPECT_EQ(j["requests"]["started"], 4);
  EXPECT_EQ(j["requests"]["completed"], 4);
  EXPECT_EQ(j["outcomes"], Json::parse(R"({"ok": 2, "timeout": 1, "connect_error": 1,
                                           "reset": 0, "parse_error": 0, "check_failed": 0})"));
  EXPECT_EQ(j["status_codes"]["200"], 1);
  EXPECT_EQ(j["status_codes"]["404"], 1);
  EXPECT_EQ(j["duration_seconds"], 2.0);
  EXPECT_EQ(j["requests_per_second"], 2.0);
  EXPECT_TRUE(j["latency_seconds"]["p999"].is_number());
  EXPECT_EQ(j["latency_seconds"]["max"], 0.004);
  EXPECT_EQ(j["bytes"]["sent"], 0);
  EXPECT_EQ(j["connections"]["opened"], 0);
  EXPECT_EQ(j["connections"]["peak"], 0);
  EXPECT_EQ(j["interrupted"], false);
  EXPECT_EQ(j["errors"][0]["outcome"], "timeout");
  bool refused = false;
  for (const Json& e : j["errors"]) refused = refused || e["message"] == "Connection refused";
  EXPECT_TRUE(refused) << j.dump();
  EXPECT_TRUE(j["batch_window_max_seconds"].is_null());  // Not given.
  // Integers stay integers (never 4.0 or 4e0).
  EXPECT_TRUE(j["requests"]["started"].is_number_unsigned());
}

// The most the batching may add to a latency, as the run reports it.
TEST(RunReportTest, JsonRecordsTheLongestBatchWindow) {
  core::RunResult result = SampleResult();
  core::RunPlan plan;
  plan.pipeline = 16;
  plan.batch_window_max = absl::Milliseconds(1);
  RunReport report{.target = "http://x/",
                   .planned = 4,
                   .concurrency = 2,
                   .threads = 1,
                   .result = &result,
                   .plan = &plan,
                   .batch_window_max = plan.batch_window_max};
  Json j = Json::parse(RunResultToJson(report));
  EXPECT_EQ(j["batch_window_max_seconds"], 0.001);
  EXPECT_EQ(j["pipeline"], 16);
}

// Two connections over a 50 ms round trip, each request 75 ms and none queued: the summary
// says the round trip bound the run, and the JSON has the numbers; loopback says nothing.
TEST(RunReportTest, ARoundTripBoundRunIsToldWhy) {
  for (uint64_t round_trip_ns : {50'000'000, 30'000}) {
    core::RunResult result;
    result.stats.started = 40;
    result.stats.outcomes[0] = 40;
    result.stats.bytes_received = 40 * 65536;
    core::LatencyHistogram connect, latency;
    connect.Record(round_trip_ns);
    for (int i = 0; i < 40; ++i) latency.Record(round_trip_ns * 3 / 2);
    result.stats.connect = connect.Snapshot();
    result.stats.latency = latency.Snapshot();
    result.duration = absl::Milliseconds(1500);
    core::RunPlan plan;
    plan.concurrency = 2;
    RunReport report{.target = "http://x/",
                     .planned = 40,
                     .concurrency = 2,
                     .threads = 1,
                     .result = &result,
                     .plan = &plan};
    std::string summary = FormatRunSummary(report);
    Json j = Json::parse(RunResultToJson(report));
    if (round_trip_ns == 30'000) {
      EXPECT_EQ(summary.find("round trip"), std::string::npos) << summary;
      EXPECT_EQ(j["round_trip"]["bound"], false);
      continue;
    }
    EXPECT_NE(summary.find("Note:        the round trip bounded this run: 2 connections with "
                           "64.00 KiB in flight each (1 response) carry at most 2.50 MiB/s over "
                           "a 50.00ms round trip (the fastest connect); it moved 1.67 MiB/s."),
              std::string::npos)
        << summary;
    EXPECT_EQ(j["round_trip"]["bound"], true);
    EXPECT_EQ(j["round_trip"]["in_flight_bytes_per_connection"], 65536.0);
    EXPECT_NEAR(j["round_trip"]["seconds"].get<double>(), 0.050, 0.0005);
    plan.rate = 10.0;  // The open model: -R sets the pace.
    EXPECT_TRUE(Json::parse(RunResultToJson(report))["round_trip"].is_null());
  }
}

// A target with bytes that are not UTF-8 still gives a document every JSON reader accepts.
TEST(RunReportTest, JsonIsValidUtf8WhateverTheInput) {
  core::RunResult result = SampleResult();
  RunReport report{.target = "http://x/\xff\xfe/{i}",
                   .planned = 4,
                   .concurrency = 2,
                   .threads = 1,
                   .result = &result};
  std::string text = RunResultToJson(report);
  Json j = Json::parse(text);  // Throws on invalid UTF-8.
  EXPECT_EQ(j["target"], "http://x/\xEF\xBF\xBD\xEF\xBF\xBD/{i}");
}

TEST(RunReportTest, NoOkResponseMeansNoLatency) {
  core::WorkerStats stats;
  stats.RequestStarted();
  stats.RequestFailed(core::Outcome::kConnectError, ECONNREFUSED);
  core::RunResult result;
  result.stats = stats.Snapshot();
  result.duration = absl::Seconds(1);
  RunReport report{.target = "http://x/",
                   .planned = 1,
                   .concurrency = 1,
                   .requested_concurrency = 100,
                   .threads = 1,
                   .result = &result};
  EXPECT_TRUE(Json::parse(RunResultToJson(report))["latency_seconds"].is_null());
  std::string text = FormatRunSummary(report);
  EXPECT_NE(text.find("Latency:     n/a"), std::string::npos) << text;
  EXPECT_EQ(text.find("mean 0.0us"), std::string::npos) << text;
  EXPECT_NE(text.find("1 connections (-c 100: no more than -n)"), std::string::npos) << text;
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
  for (const char* part : {"p75 ", "p95 ", " ± ", "(50.00% ok)",
                           "Warning:     1 of 2 responses were not 2xx", "Transfer:", "  <= "}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
}

TEST(RunReportTest, LiveStatusShowsTheLastSecondNotTheAverage) {
  core::WorkerStats stats;
  core::RunStats start = stats.Snapshot();
  for (int i = 0; i < 4; ++i) {
    stats.RequestStarted();
    stats.RequestSucceeded(200, 3'000'000);
  }
  stats.RequestStarted();
  stats.RequestFailed(core::Outcome::kReset, ECONNRESET);
  core::RunStats now = stats.Snapshot();
  LiveStatus status{.now = &now,
                    .window_start = &start,
                    .window_seconds = 0.5,
                    .elapsed = absl::Seconds(100),
                    .planned = 10,
                    .planned_duration = std::nullopt};
  std::string line = FormatLiveStatus(status);
  // 5 completed in the last 0.5 s: 10 req/s, though the average over 100 s is 0.05.
  for (const char* part :
       {" 50% ", "10 req/s", "p99 3.", "in flight 0", "reset 1", "[##########"}) {
    EXPECT_NE(line.find(part), std::string::npos) << part << "\n" << line;
  }
}

TEST(RunReportTest, ThresholdsAppearInTheSummaryAndTheJson) {
  core::RunResult result = SampleResult();
  RunReport report{
      .target = "http://x/", .planned = 4, .concurrency = 2, .threads = 1, .result = &result};
  std::vector<core::Threshold> thresholds = {*core::ParseThreshold("p99>3ms"),
                                             *core::ParseThreshold("error_rate>60%")};
  report.thresholds = core::EvaluateThresholds(thresholds, result.stats, result.duration);
  Json j = Json::parse(RunResultToJson(report));
  EXPECT_EQ(j["thresholds"][0]["expr"], "p99>3ms");
  EXPECT_EQ(j["thresholds"][0]["failed"], true);
  EXPECT_NEAR(j["thresholds"][0]["value"].get<double>(), 0.004, 0.0001);
  EXPECT_EQ(j["thresholds"][1]["failed"], false);
  EXPECT_EQ(j["thresholds"][1]["value"], 0.5);
  std::string text = FormatRunSummary(report);
  EXPECT_NE(text.find("FAILED"), std::string::npos) << text;
}

}  // namespace
}  // namespace uringload::exporters
