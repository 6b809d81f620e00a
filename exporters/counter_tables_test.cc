// Every row of the counter tables (core/run/run_counters.h, core/serve/server_counters.h) and
// of the histogram table (core/run/run_histograms.h) reaches the JSON result (and comes back
// from it), is merged by its rule and is exported to Prometheus: a counter or a histogram
// added as a row needs no other edit, and this test covers it as soon as the row exists.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/flow/flow_program.h"
#include "core/run/run_counters.h"
#include "core/run/run_histograms.h"
#include "core/run/thresholds.h"
#include "core/serve/server_counters.h"
#include "exporters/json_text.h"
#include "exporters/prometheus_metrics.h"
#include "exporters/run_json_reader.h"
#include "exporters/run_report.h"
#include "exporters/serve_report.h"

namespace uringload::exporters {
namespace {

using core::CounterMerge;
using core::CounterRow;
using core::kRunCounters;

// A value per row, distinct from every other row's (whole seconds for a duration).
uint64_t ValueOf(size_t row, uint64_t scale) {
  uint64_t v = (row + 1) * scale;
  return kRunCounters[row].nanoseconds ? v * 1'000'000'000 : v;
}

core::RunResult ResultWithEveryRow(uint64_t scale) {
  core::RunResult result;
  for (size_t i = 0; i < std::size(kRunCounters); ++i) {
    result.stats.*kRunCounters[i].member = ValueOf(i, scale);
  }
  result.duration = absl::Seconds(1);
  return result;
}

// A plan whose result shows every object: TLS, HTTP/3, a flow, gRPC, streams, LLM answers.
core::RunPlan EveryObjectShown() {
  core::RunPlan plan;
  plan.url.tls = true;
  plan.http = core::HttpVersion::kHttp3;
  plan.grpc = true;
  plan.flow = std::make_shared<core::FlowProgram>();
  plan.streams = true;
  plan.llm = core::LlmPlan{.chat = true, .goodput = {}};
  return plan;
}

TEST(RunCountersTest, EveryRowIsInTheJsonResultAndReadBack) {
  core::RunResult result = ResultWithEveryRow(1);
  core::RunPlan plan = EveryObjectShown();
  RunReport report{
      .target = "t", .run_id = "r", .planned = std::nullopt, .result = &result, .plan = &plan};
  std::string text = RunResultToJson(report);
  Json doc = Json::parse(text);
  absl::StatusOr<RunResultFile> file = ReadRunResult(text, "result.json");
  ASSERT_TRUE(file.ok()) << file.status();
  for (size_t i = 0; i < std::size(kRunCounters); ++i) {
    const CounterRow& row = kRunCounters[i];
    if (row.key.empty()) continue;
    std::string pointer = "/" + std::string(row.object) + "/" + std::string(row.key);
    ASSERT_TRUE(doc.contains(Json::json_pointer(pointer))) << pointer;
    const Json& value = doc.at(Json::json_pointer(pointer));
    if (row.nanoseconds) {
      EXPECT_DOUBLE_EQ(value.get<double>(), static_cast<double>(i + 1)) << pointer;
    } else {
      EXPECT_EQ(value.get<uint64_t>(), i + 1) << pointer;
    }
    EXPECT_EQ(file->stats.*row.member, ValueOf(i, 1)) << pointer << " read back";
  }
}

TEST(RunCountersTest, EveryRowMergesByItsRule) {
  core::RunStats a = ResultWithEveryRow(1).stats;
  core::RunStats b = ResultWithEveryRow(3).stats;
  core::RunStats none;  // A shard that saw nothing: 0 everywhere.
  a.Merge(b);
  a.Merge(none);
  for (size_t i = 0; i < std::size(kRunCounters); ++i) {
    const CounterRow& row = kRunCounters[i];
    uint64_t expected = row.merge == CounterMerge::kSum   ? ValueOf(i, 1) + ValueOf(i, 3)
                        : row.merge == CounterMerge::kMax ? ValueOf(i, 3)
                                                          : ValueOf(i, 1);  // Least non-zero.
    EXPECT_EQ(a.*row.member, expected) << "row " << i << " (" << row.key << ")";
  }
}

TEST(RunCountersTest, EveryRowWithAMetricIsExported) {
  core::RunStats s = ResultWithEveryRow(1).stats;
  RunInfo info;
  info.flow = true;
  info.grpc = true;
  info.streams = true;
  info.llm = true;
  RunCollector collector([&] { return s; }, [] { return absl::Seconds(1); }, info, {});
  std::string exposition = SerializeMetrics(collector);
  for (size_t i = 0; i < std::size(kRunCounters); ++i) {
    const CounterRow& row = kRunCounters[i];
    if (row.metric.empty()) continue;
    std::string type = row.gauge ? " gauge\n" : " counter\n";
    EXPECT_NE(exposition.find("# TYPE " + std::string(row.metric) + type), std::string::npos)
        << row.metric;
  }
}

// Every row of the histogram table (core/run/run_histograms.h) likewise: in the JSON result
// and read back, merged, exported, in the summary when it has a line there, and a threshold's
// measure, with no other edit.
TEST(RunHistogramsTest, EveryRowIsWrittenReadMergedExportedAndMeasured) {
  core::RunResult result;
  result.duration = absl::Seconds(1);
  for (size_t i = 0; i < std::size(core::kRunHistograms); ++i) {
    core::LatencyHistogram h;
    for (size_t k = 0; k <= i; ++k) h.Record((i + 1) * 1'000'000);  // i+1 values of i+1 ms.
    result.stats.*core::kRunHistograms[i].member = h.Snapshot();
  }
  core::RunPlan plan = EveryObjectShown();
  RunReport report{
      .target = "t", .run_id = "r", .planned = std::nullopt, .result = &result, .plan = &plan};
  std::string text = RunResultToJson(report);
  Json doc = Json::parse(text);
  absl::StatusOr<RunResultFile> file = ReadRunResult(text, "result.json");
  ASSERT_TRUE(file.ok()) << file.status();
  result.stats.tls_handshakes = 1;  // The TLS histogram is exported with TLS.
  RunInfo info;
  info.flow = true;
  info.grpc = true;
  info.streams = true;
  info.llm = true;
  RunCollector collector([&] { return result.stats; }, [] { return absl::Seconds(1); }, info, {});
  std::string exposition = SerializeMetrics(collector);
  std::string summary = FormatRunSummary(report);
  core::RunStats merged = result.stats;
  merged.Merge(result.stats);
  for (size_t i = 0; i < std::size(core::kRunHistograms); ++i) {
    const core::HistogramRow& row = core::kRunHistograms[i];
    std::string object = row.object.empty() ? "" : "/" + std::string(row.object);
    std::string pointer = absl::StrCat(object, "/", std::string(row.stem), "_histogram/count");
    ASSERT_TRUE(doc.contains(Json::json_pointer(pointer))) << pointer;
    EXPECT_EQ(doc.at(Json::json_pointer(pointer)).get<uint64_t>(), i + 1) << pointer;
    std::string p50 = absl::StrCat(object, "/", std::string(row.stem), "_seconds/p50");
    EXPECT_NEAR(doc.at(Json::json_pointer(p50)).get<double>(), (i + 1) / 1e3, (i + 1) / 2e4) << p50;
    EXPECT_EQ((file->stats.*row.member).count, i + 1) << pointer << " read back";
    EXPECT_EQ((merged.*row.member).count, 2 * (i + 1)) << row.stem << " merged";
    EXPECT_NE(exposition.find("# TYPE " + std::string(row.metric) + " histogram\n"),
              std::string::npos)
        << row.metric;
    if (!row.summary.empty()) {
      EXPECT_NE(summary.find(std::string(row.summary)), std::string::npos) << summary;
    }
    std::optional<double> measured = core::MeasureOf(absl::StrCat(std::string(row.measure), ".p50"),
                                                     result.stats, absl::Seconds(1));
    ASSERT_TRUE(measured.has_value()) << row.measure;
    EXPECT_NEAR(*measured, (i + 1) / 1e3, (i + 1) / 2e4) << row.measure;
  }
}

core::ServerRunStats ServerStatsWithEveryRow(uint64_t scale) {
  core::ServerRunStats s;
  for (size_t i = 0; i < std::size(core::kServerCounters); ++i) {
    s.*core::kServerCounters[i].member = (i + 1) * scale;
  }
  return s;
}

// A row with a summary phrase is in the text summary, "<value> <phrase>", with no other edit.
TEST(RunCountersTest, EveryRowWithASummaryPhraseIsInTheSummary) {
  core::RunResult result = ResultWithEveryRow(1);
  result.stats.connections_http3 = 1;  // Its lines are shown.
  core::RunPlan plan = EveryObjectShown();
  RunReport report{
      .target = "t", .run_id = "r", .planned = std::nullopt, .result = &result, .plan = &plan};
  std::string summary = FormatRunSummary(report);
  size_t phrased = 0;
  for (size_t i = 0; i < std::size(kRunCounters); ++i) {
    const CounterRow& row = kRunCounters[i];
    if (row.summary.empty()) continue;
    ++phrased;
    std::string shown = absl::StrCat(ValueOf(i, 1), " ", std::string(row.summary));
    EXPECT_NE(summary.find(shown), std::string::npos) << shown << "\n" << summary;
  }
  EXPECT_GT(phrased, 0u);
}

TEST(ServerCountersTest, EveryRowIsInTheJsonSummaryMergedAndExported) {
  core::ServePlan plan;
  ServeReport report{
      .plan = &plan, .stats = ServerStatsWithEveryRow(1), .duration = absl::Seconds(1)};
  Json doc = Json::parse(ServeReportToJson(report));
  ServeCollector collector([&] { return report.stats; }, {});
  std::string exposition = SerializeMetrics(collector);
  core::ServerRunStats merged = ServerStatsWithEveryRow(1);
  merged.Merge(ServerStatsWithEveryRow(3));
  for (size_t i = 0; i < std::size(core::kServerCounters); ++i) {
    const core::ServerCounterRow& row = core::kServerCounters[i];
    EXPECT_EQ(merged.*row.member, 4 * (i + 1)) << row.key;  // Every server row is a sum.
    if (!row.key.empty()) {
      std::string pointer = "/" + std::string(row.object) + "/" + std::string(row.key);
      ASSERT_TRUE(doc.contains(Json::json_pointer(pointer))) << pointer;
      EXPECT_EQ(doc.at(Json::json_pointer(pointer)).get<uint64_t>(), i + 1) << pointer;
    }
    if (!row.metric.empty()) {
      std::string type = row.gauge ? " gauge\n" : " counter\n";
      EXPECT_NE(exposition.find("# TYPE " + std::string(row.metric) + type), std::string::npos)
          << row.metric;
    }
  }
}

}  // namespace
}  // namespace uringload::exporters
