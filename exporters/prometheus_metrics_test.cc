#include "exporters/prometheus_metrics.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"

namespace uringload::exporters {
namespace {

core::RunStats SampleStats() {
  core::WorkerStats w;
  for (int i = 0; i < 5; ++i) w.RequestStarted();
  w.RequestSucceeded(200, 300'000);        // 0.3 ms
  w.RequestSucceeded(404, 2'000'000'000);  // 2 s
  w.RequestFailed(core::Outcome::kTimeout);
  w.ConnectionOpened();
  return w.Snapshot();
}

TEST(PrometheusMetricsTest, RunCollectorExposesEveryMetricWithLabels) {
  RunCollector collector([] { return SampleStats(); }, [] { return absl::Seconds(3); },
                         RunInfo{"0.1.0", "http://x/{i}", 2, 10, 5, 30.0},
                         {{"role", "client"}, {"experiment", "a"}});
  std::string text = SerializeMetrics(collector);
  for (const char* line :
       {"uringload_requests_started_total{role=\"client\",experiment=\"a\"} 5",
        "uringload_requests_completed_total{role=\"client\",experiment=\"a\",outcome=\"ok\"} 2",
        "uringload_requests_completed_total{role=\"client\",experiment=\"a\",outcome=\"timeout\"} "
        "1",
        "uringload_requests_completed_total{role=\"client\",experiment=\"a\",outcome=\"reset\"} 0",
        "uringload_responses_total{role=\"client\",experiment=\"a\",code=\"404\"} 1",
        "uringload_requests_in_flight{role=\"client\",experiment=\"a\"} 2",
        "uringload_connections_open{role=\"client\",experiment=\"a\"} 1",
        "uringload_planned_requests{role=\"client\",experiment=\"a\"} 5",
        "uringload_request_duration_seconds_bucket{role=\"client\",experiment=\"a\",le=\"5e-05\"} "
        "0",
        "uringload_request_duration_seconds_bucket{role=\"client\",experiment=\"a\",le=\"0."
        "0002954\"} "
        "0",
        "uringload_request_duration_seconds_bucket{role=\"client\",experiment=\"a\",le=\"0."
        "0003084\"} "
        "1",
        "uringload_request_duration_seconds_bucket{role=\"client\",experiment=\"a\",le=\"2.035\"} "
        "2",
        "uringload_planned_duration_seconds{role=\"client\",experiment=\"a\"} 30",
        "uringload_elapsed_seconds{role=\"client\",experiment=\"a\"} 3",
        "uringload_request_duration_seconds_bucket{role=\"client\",experiment=\"a\",le=\"+Inf\"} 2",
        "uringload_request_duration_seconds_count{role=\"client\",experiment=\"a\"} 2",
        "target=\"http://x/{i}\"", "concurrency=\"10\""}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

// With --targets each target has its own outcomes, status codes and latency histogram under a
// `target` label, in families apart from the run's.
TEST(PrometheusMetricsTest, EachTargetHasItsOwnSeries) {
  RunCollector collector(
      [] {
        core::WorkerStats w(/*targets=*/2, /*open_model=*/false, /*target_of=*/{0, 1});
        for (int i = 0; i < 3; ++i) w.RequestStarted();
        w.RequestSucceeded(200, 1'000'000, 0, 0);
        w.RequestSucceeded(503, 1'000'000, 0, 1);
        w.RequestFailed(core::Outcome::kTimeout, 0, 1);
        return w.Snapshot();
      },
      [] { return absl::Seconds(1); }, RunInfo{"0.1.0", "t.txt", 1, 1, 3, std::nullopt},
      {{"role", "client"}}, {"login", "other"});
  std::string text = SerializeMetrics(collector);
  for (const char* line :
       {"uringload_target_requests_completed_total{role=\"client\",target=\"login\",outcome="
        "\"ok\"} 1",
        "uringload_target_requests_completed_total{role=\"client\",target=\"other\",outcome="
        "\"timeout\"} 1",
        "uringload_target_responses_total{role=\"client\",target=\"other\",code=\"503\"} 1",
        "uringload_target_request_duration_seconds_count{role=\"client\",target=\"login\"} 1",
        "uringload_target_request_duration_seconds_count{role=\"client\",target=\"other\"} 1",
        "uringload_requests_completed_total{role=\"client\",outcome=\"ok\"} 2"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  // Without targets, no per-target family.
  RunCollector plain([] { return core::WorkerStats().Snapshot(); }, [] { return absl::Seconds(1); },
                     RunInfo{}, {});
  EXPECT_EQ(SerializeMetrics(plain).find("uringload_target_"), std::string::npos);
}

// A flow's steps are labelled step=, with its check_failed per step, and its iterations
// are counted by how they ended.
TEST(PrometheusMetricsTest, AFlowExportsStepsAndIterations) {
  RunInfo info;
  info.target = "flow shop.yaml";
  info.flow = true;
  RunCollector collector(
      [] {
        core::WorkerStats w(/*targets=*/2, /*open_model=*/false, /*target_of=*/{0, 1});
        for (int i = 0; i < 3; ++i) w.IterationStarted();
        for (int i = 0; i < 5; ++i) w.RequestStarted();
        w.RequestSucceeded(200, 1'000'000, 0, 0);
        w.RequestSucceeded(200, 1'000'000, 0, 1);
        w.IterationCompleted(2'000'000);
        w.RequestSucceeded(200, 1'000'000, 0, 0);
        w.RequestFailed(core::Outcome::kCheckFailed,
                        static_cast<int>(core::CheckFailure::kNotExtracted), 1, 200);
        w.IterationAborted(1);
        w.RequestFailed(core::Outcome::kTimeout, 0, 0);
        w.IterationAborted(0);
        return w.Snapshot();
      },
      [] { return absl::Seconds(1); }, info, {{"role", "client"}}, {"login", "cart"});
  std::string text = SerializeMetrics(collector);
  for (const char* line :
       {"uringload_target_requests_completed_total{role=\"client\",step=\"cart\",outcome="
        "\"check_failed\"} 1",
        "uringload_target_requests_completed_total{role=\"client\",step=\"login\",outcome="
        "\"ok\"} 2",
        "uringload_iterations_started_total{role=\"client\"} 3",
        "uringload_iterations_ended_total{role=\"client\",outcome=\"completed\"} 1",
        "uringload_iterations_ended_total{role=\"client\",outcome=\"aborted\"} 2",
        "uringload_iteration_duration_seconds_count{role=\"client\"} 1"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  EXPECT_EQ(text.find("uringload_target_requests_completed_total{role=\"client\",target="),
            std::string::npos);
}

// Under -R the latency counts from the intended start; the uncorrected one from the send.
TEST(PrometheusMetricsTest, OpenModelExportsBothLatenciesAndLateStarts) {
  RunCollector collector(
      [] {
        core::WorkerStats w(1, /*open_model=*/true);
        w.RequestStarted();
        w.LateStart();
        w.RequestSucceeded(200, 1'500'000'000, 300'000);
        return w.Snapshot();
      },
      [] { return absl::Seconds(3); }, RunInfo{"0.1.0", "http://x/", 1, 1, 1, std::nullopt},
      {{"role", "client"}});
  std::string text = SerializeMetrics(collector);
  for (const char* line :
       {"uringload_request_duration_seconds_bucket{role=\"client\",le=\"1.017\"} 0",
        "uringload_request_duration_uncorrected_seconds_bucket{role=\"client\",le=\"0.0003084\"} 1",
        "uringload_request_duration_uncorrected_seconds_count{role=\"client\"} 1",
        "uringload_late_starts_total{role=\"client\"} 1"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

// Log-spaced bounds at most 4.5% apart from 50 us to 60 s (see DurationBuckets).
TEST(PrometheusMetricsTest, DurationBucketsAreFineEnoughForFivePercentQuantiles) {
  const std::vector<double>& b = DurationBuckets();
  EXPECT_EQ(b.front(), 50e-6);
  EXPECT_GE(b.back(), 60.0);
  EXPECT_LT(b.size(), 330u);
  for (size_t i = 1; i < b.size(); ++i) {
    EXPECT_GT(b[i], b[i - 1]);
    EXPECT_LE(b[i] / b[i - 1], 1.05) << b[i - 1] << " " << b[i];
  }
}

TEST(PrometheusMetricsTest, ServeCollectorExposesFaultsByKind) {
  ServeCollector collector(
      [] {
        core::ServerRunStats s;
        s.requests_received = 7;
        s.faults[static_cast<size_t>(core::Fault::kStall)] = 3;
        return s;
      },
      {{"role", "server"}});
  std::string text = SerializeMetrics(collector);
  EXPECT_NE(text.find("uringload_server_requests_total{role=\"server\"} 7"), std::string::npos);
  EXPECT_NE(text.find("uringload_server_faults_total{role=\"server\",kind=\"stall\"} 3"),
            std::string::npos);
  EXPECT_NE(text.find("uringload_server_connections_open{role=\"server\"} 0"), std::string::npos);
}

TEST(PrometheusMetricsTest, LabelsAreValidated) {
  EXPECT_EQ(ParseMetricsLabel("run=a=b")->second, "a=b");
  EXPECT_EQ(ParseMetricsLabel("empty=")->second, "");
  for (const char* bad :
       {"novalue", "1x=a", "__x=a", "role=x", "run_id=x", "shard=1", "a-b=c", "=v"}) {
    EXPECT_FALSE(ParseMetricsLabel(bad).ok()) << bad;
  }
}

TEST(PrometheusMetricsTest, EndpointRefusesABadAddress) {
  RunCollector collector([] { return core::RunStats{}; }, [] { return absl::ZeroDuration(); },
                         RunInfo{}, {});
  auto shared = std::make_shared<RunCollector>(collector);
  absl::StatusOr<std::unique_ptr<MetricsEndpoint>> endpoint =
      MetricsEndpoint::Start("256.0.0.1:99999", shared);
  ASSERT_FALSE(endpoint.ok());
  EXPECT_TRUE(absl::IsUnavailable(endpoint.status())) << endpoint.status();
  EXPECT_TRUE(absl::StartsWith(endpoint.status().message(),
                               "--metrics-listen: cannot serve metrics on '256.0.0.1:99999': "))
      << endpoint.status();
}

}  // namespace
}  // namespace uringload::exporters
