// End-to-end: live metrics checked by Debian's real Prometheus, Pushgateway and promtool.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/ports.h"
#include "tests/support/prometheus.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

// The value of a one-series query result, polled until it equals `want` or ~15 s pass.
std::string PollValue(const PrometheusServer& prom, const std::string& promql,
                      const std::string& want) {
  std::string value;
  for (int i = 0; i < 60 && value != want; ++i) {
    FlatJson result = prom.Query(promql);
    auto it = result.find("data.result.0.value.1");
    value = it == result.end() ? "" : it->second;
    if (value != want) usleep(250'000);
  }
  return value;
}

TEST(MetricsE2ETest, PrometheusScrapesExactlyTheRunsCounts) {
  uint16_t run_metrics = FreePort();
  uint16_t serve_metrics = FreePort();
  UringloadServer server({"--metrics-listen", LoopbackAddress(serve_metrics)});
  ASSERT_TRUE(server.ok());
  PrometheusServer prom({LoopbackAddress(run_metrics), LoopbackAddress(serve_metrics)});
  ASSERT_TRUE(prom.ok());
  ASSERT_TRUE(prom.WaitForTargetsUp(1));  // The server: scraping has begun.
  RunOutput run = RunUringload({"-n", "200000", "-c", "100", "--metrics-listen",
                                LoopbackAddress(run_metrics), "--metrics-linger", "4s",
                                "--metrics-label", "experiment=e2e", server.Url("/{i}")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  for (const char* outcome :
       {"ok", "timeout", "connect_error", "reset", "parse_error", "check_failed"}) {
    std::string promql = std::string(
                             "max_over_time(uringload_requests_completed_total{role=\"client\","
                             "experiment=\"e2e\",outcome=\"") +
                         outcome + "\"}[5m])";
    std::string want = run.json.at(std::string("outcomes.") + outcome);
    EXPECT_EQ(PollValue(prom, promql, want), want) << outcome;
  }
  EXPECT_EQ(
      PollValue(prom, "max_over_time(uringload_planned_requests{role=\"client\"}[5m])", "200000"),
      "200000");
  EXPECT_EQ(PollValue(prom, "uringload_server_requests_total{role=\"server\"}", "200000"),
            "200000");
}

TEST(MetricsE2ETest, EveryDashboardExpressionIsValidPromQL) {
  std::ifstream in(URINGLOAD_DASHBOARD);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<FlatJson> dashboard = FlattenJson(text);
  ASSERT_TRUE(dashboard.ok());
  PrometheusServer prom({});
  ASSERT_TRUE(prom.ok());
  int checked = 0;
  for (const auto& [key, expr] : *dashboard) {
    if (key.size() < 5 || key.compare(key.size() - 5, 5, ".expr") != 0) continue;
    // Grafana fills in its interval variables; Prometheus needs a real duration.
    std::string promql = absl::StrReplaceAll(expr, {{"$__rate_interval", "1m"},
                                                    {"$job", ".*"},
                                                    {"$instance", ".*"},
                                                    {"$run", ".*"},
                                                    {"$shard", ".*"}});
    FlatJson result = prom.Query(promql);
    EXPECT_EQ(result["status"], "success") << key << ": " << promql << " -> " << result["error"];
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(MetricsE2ETest, PushgatewayReceivesTheFinalValues) {
  PushgatewayServer gateway;
  ASSERT_TRUE(gateway.ok());
  UringloadServer server({"--fault-status", "503", "--fault-status-rate", "0.05"});
  ASSERT_TRUE(server.ok());
  RunOutput run =
      RunUringload({"-n", "20000", "-c", "50", "--pushgateway", gateway.Url(), "--push-job", "e2e",
                    "--push-interval", "200ms", server.Url("/{i}")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  std::string metrics = gateway.Metrics();
  EXPECT_EQ(
      SampleValue(metrics, "uringload_requests_completed_total", {"job=\"e2e\"", "outcome=\"ok\""}),
      static_cast<double>(JsonCount(run.json, "outcomes.ok")));
  EXPECT_EQ(SampleValue(metrics, "uringload_responses_total", {"job=\"e2e\"", "code=\"503\""}),
            static_cast<double>(JsonCount(run.json, "status_codes.503")));
  EXPECT_EQ(SampleValue(metrics, "uringload_requests_started_total", {"job=\"e2e\""}), 20000.0);
}

TEST(MetricsE2ETest, ScrapeTextPassesPromtool) {
  uint16_t run_metrics = FreePort();
  uint16_t serve_metrics = FreePort();
  UringloadServer server({"--metrics-listen", LoopbackAddress(serve_metrics)});
  ASSERT_TRUE(server.ok());
  BackgroundProcess run({UringloadBinary(), "run", "-q", "-n", "5000", "-c", "10",
                         "--metrics-listen", LoopbackAddress(run_metrics), "--metrics-linger", "5s",
                         server.Url("/{i}")});
  ASSERT_TRUE(WaitForListener(run_metrics));
  // Check the final values: wait until the run is over and lingering.
  std::string run_url = "http://" + LoopbackAddress(run_metrics) + "/metrics";
  for (int i = 0; i < 100 && SampleValue(HttpGet(run_url), "uringload_requests_completed_total",
                                         {"outcome=\"ok\""}) != 5000;
       ++i) {
    usleep(100'000);
  }
  for (uint16_t port : {run_metrics, serve_metrics}) {
    std::string url = "http://" + LoopbackAddress(port) + "/metrics";
    ProcessResult check =
        RunProcess({"sh", "-c", "curl -sf " + url + " | promtool check metrics"}, 30);
    EXPECT_EQ(check.exit_code, 0) << url << ": " << check.out << check.err;
  }
  EXPECT_EQ(run.Stop(SIGINT), 0);  // SIGINT during the linger ends it; the run was complete.
}

}  // namespace
}  // namespace uringload::testing
