// End-to-end: metrics that agree with the run's own numbers. Quantiles computed from a final
// scrape exactly as Prometheus' histogram_quantile does are within 5% of the JSON's; every
// scrape during a run is consistent in itself; a port-only --metrics-listen stays on
// loopback; pushers with the same job coexist in a real Pushgateway; and the Grafana
// dashboard keeps two concurrent runs apart in a real Prometheus.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/ports.h"
#include "tests/support/prometheus.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

FlatJson ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<FlatJson> json = FlattenJson(text);
  return json.ok() ? *json : FlatJson{};
}

std::string TempPath(const char* stem) {
  std::string path = absl::StrCat("/tmp/uringload-", stem, "-XXXXXX");
  close(mkstemp(path.data()));
  return path;
}

double Completed(const std::string& metrics) {
  double sum = 0;
  for (const Sample& s : Samples(metrics, "uringload_requests_completed_total")) sum += s.value;
  return sum;
}

// Runs `uringload run args` with metrics on a free port and returns its JSON and the text of
// a scrape taken after every one of its `n` requests ended (during --metrics-linger).
struct FinalScrape {
  FlatJson json;
  std::string metrics;
};
FinalScrape RunAndScrapeAtTheEnd(std::vector<std::string> args, uint64_t n) {
  uint16_t port = FreePort();
  std::string json_path = TempPath("result");
  std::vector<std::string> argv = {UringloadBinary(),
                                   "run",
                                   "-q",
                                   "--json",
                                   json_path,
                                   "--metrics-listen",
                                   LoopbackAddress(port),
                                   "--metrics-linger",
                                   "60s"};
  argv.insert(argv.end(), args.begin(), args.end());
  BackgroundProcess run(argv);
  FinalScrape out;
  EXPECT_TRUE(WaitForListener(port));
  std::string url = "http://" + LoopbackAddress(port) + "/metrics";
  for (int i = 0; i < 600 && Completed(out.metrics) < static_cast<double>(n); ++i) {
    usleep(100'000);
    out.metrics = HttpGet(url);
  }
  EXPECT_EQ(run.Stop(SIGINT), 0);  // SIGINT ends the linger of a complete run.
  out.json = ReadJsonFile(json_path);
  unlink(json_path.c_str());
  return out;
}

struct QuantileCase {
  const char* delay;
  const char* n;
  const char* c;
};

TEST(MetricsTrustTest, PrometheusQuantilesAgreeWithTheRunsOwn) {
  for (const QuantileCase& k : std::vector<QuantileCase>{{"200us", "20000", "20"},
                                                         {"5ms", "10000", "100"},
                                                         {"50ms", "4000", "200"},
                                                         {"1500ms", "400", "200"},
                                                         {"uniform:5ms-35ms", "10000", "200"}}) {
    UringloadServer server({"--delay", k.delay});
    ASSERT_TRUE(server.ok());
    FinalScrape r =
        RunAndScrapeAtTheEnd({"-n", k.n, "-c", k.c, server.Url("/{i}")}, std::stoull(k.n));
    ASSERT_EQ(JsonCount(r.json, "outcomes.ok"), std::stoull(k.n)) << k.delay;
    std::vector<Sample> buckets = Samples(r.metrics, "uringload_request_duration_seconds_bucket");
    ASSERT_GT(buckets.size(), 300u);
    for (auto [q, key] : {std::pair{0.5, "p50"}, {0.9, "p90"}, {0.99, "p99"}}) {
      double own = std::stod(r.json.at(std::string("latency_seconds.") + key));
      double prom = HistogramQuantile(q, buckets);
      EXPECT_NEAR(prom / own, 1.0, 0.05)
          << k.delay << " " << key << ": histogram_quantile " << prom << " vs the run's " << own;
    }
  }
}

// Over HTTP/2 the connections carry protocol="h2" (none "http/1.1"), and the counts are the
// run's: every request completed, none retried.
TEST(MetricsTrustTest, Http2ConnectionsCarryTheirProtocolLabel) {
  UringloadServer server({"--http2"});
  ASSERT_TRUE(server.ok());
  FinalScrape r = RunAndScrapeAtTheEnd(
      {"--http2", "-n", "2000", "-c", "4", "-p", "8", server.Url("/{i}")}, 2000);
  ASSERT_EQ(JsonCount(r.json, "outcomes.ok"), 2000u);
  std::map<std::string, double> opened;
  for (const Sample& s : Samples(r.metrics, "uringload_connections_opened_total")) {
    opened[LabelValue(s.series, "protocol")] += s.value;
  }
  EXPECT_EQ(opened["h2"], 4.0);
  EXPECT_EQ(opened["http/1.1"], 0.0);
  EXPECT_EQ(Completed(r.metrics), 2000.0);
  std::vector<Sample> retried = Samples(r.metrics, "uringload_requests_retried_total");
  ASSERT_EQ(retried.size(), 1u);
  EXPECT_EQ(retried[0].value, 0.0);
}

// Within one scrape: _count == +Inf bucket == outcome="ok", buckets never decrease, and no
// more requests ended than started. Scraped as fast as possible during a busy run, until
// enough scrapes saw requests in flight: each scrape spawns curl, so a loaded machine gets
// fewer per second, and the run lasts as long as the scrapes need (at most 60 s).
// The run's metrics carry a label of this test's own, so a scrape that reached another
// process (which took the free port first: the run then refuses it) is told apart, and the
// run starts again on another port.
TEST(MetricsTrustTest, EveryScrapeIsConsistentInItself) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  const std::string mark = absl::StrCat("trust_test=\"", getpid(), "\"");
  std::unique_ptr<BackgroundProcess> run;
  std::string url;
  for (int attempt = 0; attempt < 3 && url.empty(); ++attempt) {
    uint16_t port = FreePort();
    run = std::make_unique<BackgroundProcess>(
        std::vector<std::string>{UringloadBinary(), "run", "-q", "-d", "60s", "-c", "100",
                                 "--metrics-listen", LoopbackAddress(port), "--metrics-label",
                                 absl::StrCat("trust_test=", getpid()), server.Url("/{i}")});
    ASSERT_TRUE(WaitForListener(port));
    std::string candidate = "http://" + LoopbackAddress(port) + "/metrics";
    for (int i = 0; i < 200 && url.empty() && run->running(); ++i) {
      if (HttpGet(candidate).find(mark) != std::string::npos) url = candidate;
      if (url.empty()) usleep(50'000);
    }
  }
  ASSERT_FALSE(url.empty()) << "three free ports were taken by other processes";
  constexpr int kWanted = 8;
  int during_run = 0;
  for (int i = 0; i < 400 && during_run < kWanted && run->running(); ++i) {
    std::string m = HttpGet(url);
    if (m.empty()) continue;
    double count = SampleValue(m, "uringload_request_duration_seconds_count", {});
    double inf = SampleValue(m, "uringload_request_duration_seconds_bucket", {"le=\"+Inf\""});
    double ok = SampleValue(m, "uringload_requests_completed_total", {"outcome=\"ok\""});
    double started = SampleValue(m, "uringload_requests_started_total", {});
    ASSERT_NE(m.find(mark), std::string::npos) << "scrape " << i << " is not the run's:\n" << m;
    EXPECT_EQ(count, inf) << "scrape " << i;
    EXPECT_EQ(count, ok) << "scrape " << i;
    EXPECT_LE(Completed(m), started) << "scrape " << i;
    double last = 0;
    for (const Sample& b : Samples(m, "uringload_request_duration_seconds_bucket")) {
      EXPECT_GE(b.value, last) << b.series;
      last = b.value;
    }
    if (count > 0 && started > Completed(m)) ++during_run;  // Requests were in flight.
  }
  EXPECT_EQ(during_run, kWanted) << "too few scrapes while requests were in flight";
  EXPECT_EQ(run->Stop(SIGINT), 128 + SIGINT);  // Still running: the scrapes came before its end.
}

// /proc/net/tcp's local address of the socket listening on `port` (hex, as the kernel prints
// it: 0100007F is 127.0.0.1, 00000000 is every address); "" if none.
std::string ListeningAddress(uint16_t port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  char want[8];
  snprintf(want, sizeof(want), ":%04X", port);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (state == "0A" && local.size() > 5 && local.substr(local.size() - 5) == want) {
      return local.substr(0, local.size() - 5);
    }
  }
  return "";
}

TEST(MetricsTrustTest, APortAloneServesMetricsOnLoopbackOnly) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  for (std::string form : {"", ":"}) {
    uint16_t port = FreePort();
    BackgroundProcess run({UringloadBinary(), "run", "-q", "-n", "10", "--metrics-listen",
                           form + std::to_string(port), "--metrics-linger", "30s",
                           server.Url("/")});
    ASSERT_TRUE(WaitForListener(port)) << form;
    EXPECT_EQ(ListeningAddress(port), "0100007F") << form << port;
    std::string url = "http://" + LoopbackAddress(port) + "/metrics";
    for (int i = 0; i < 100 && Completed(HttpGet(url)) < 10; ++i) usleep(100'000);
    EXPECT_EQ(run.Stop(SIGINT), 0);  // Complete and lingering: SIGINT ends the linger.
  }
}

// Two runs pushing as the same job at the same time, told apart by a label, and a server
// pushing to the same job: each group keeps its own values (no grouping key overwrote them).
TEST(MetricsTrustTest, PushersWithTheSameJobCoexist) {
  PushgatewayServer gateway;
  ASSERT_TRUE(gateway.ok());
  UringloadServer target;
  ASSERT_TRUE(target.ok());
  auto push = [&](const char* run, const char* n) {
    return std::make_unique<BackgroundProcess>(std::vector<std::string>{
        UringloadBinary(), "run", "-q", "-n", n, "-c", "20", "--pushgateway", gateway.Url(),
        "--push-job", "shared", "--push-interval", "100ms", "--metrics-label",
        std::string("run=") + run, target.Url("/{i}")});
  };
  std::unique_ptr<BackgroundProcess> a = push("a", "30000");
  std::unique_ptr<BackgroundProcess> b = push("b", "50000");
  EXPECT_EQ(a->Wait(60), 0);
  EXPECT_EQ(b->Wait(60), 0);
  std::string metrics = gateway.Metrics();
  EXPECT_EQ(
      SampleValue(metrics, "uringload_requests_started_total", {"job=\"shared\"", "run=\"a\""}),
      30000.0)
      << metrics;
  EXPECT_EQ(
      SampleValue(metrics, "uringload_requests_started_total", {"job=\"shared\"", "run=\"b\""}),
      50000.0);
  // The grouping key carries the instance (this host by default) and the labels.
  std::set<std::string> groups;
  for (const Sample& s : Samples(metrics, "uringload_requests_started_total")) {
    if (LabelValue(s.series, "job") != "shared") continue;
    EXPECT_NE(LabelValue(s.series, "instance"), "") << s.series;
    groups.insert(LabelValue(s.series, "run"));
  }
  EXPECT_EQ(groups, (std::set<std::string>{"a", "b"}));
}

// Two shards of one run on one host push to one job: shard and run_id are in every series
// and in the grouping key, so neither overwrites the other and their counters sum to -n.
TEST(MetricsTrustTest, ShardsOfOneRunPushSeparatelyAndSumToN) {
  PushgatewayServer gateway;
  ASSERT_TRUE(gateway.ok());
  UringloadServer target;
  ASSERT_TRUE(target.ok());
  std::vector<std::unique_ptr<BackgroundProcess>> shards;
  for (const char* shard : {"0/2", "1/2"}) {
    shards.push_back(std::make_unique<BackgroundProcess>(std::vector<std::string>{
        UringloadBinary(), "run", "-q", "-n", "30001", "-c", "20", "--shard", shard, "--run-id",
        "fleet-1", "--pushgateway", gateway.Url(), "--push-job", "fleet", target.Url("/{i}")}));
  }
  for (auto& shard : shards) EXPECT_EQ(shard->Wait(60), 0);
  std::string metrics = gateway.Metrics();
  double ok = 0;
  std::set<std::string> seen;
  for (const Sample& s : Samples(metrics, "uringload_requests_completed_total")) {
    if (LabelValue(s.series, "job") != "fleet" || LabelValue(s.series, "outcome") != "ok") continue;
    EXPECT_EQ(LabelValue(s.series, "run_id"), "fleet-1") << s.series;
    seen.insert(LabelValue(s.series, "shard"));
    ok += s.value;
  }
  EXPECT_EQ(seen, (std::set<std::string>{"0", "1"})) << metrics;
  EXPECT_EQ(ok, 30001.0);
}

// Grafana fills in its variables; Prometheus needs real values.
std::string Expand(const std::string& expr) {
  return absl::StrReplaceAll(expr, {{"$__rate_interval", "1m"},
                                    {"$job", ".*"},
                                    {"$instance", ".*"},
                                    {"$run_id", ".*"},
                                    {"$run", ".*"},
                                    {"$shard", ".*"}});
}

// Two runs at once, labelled run=a and run=b, scraped by a real Prometheus: every panel's
// expression is valid; every per-run one gives series for both runs, never one summed
// series; the counts and the progress of each are its own.
TEST(MetricsTrustTest, DashboardKeepsConcurrentRunsApart) {
  std::ifstream in(URINGLOAD_DASHBOARD);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<FlatJson> dashboard = FlattenJson(text);
  ASSERT_TRUE(dashboard.ok());
  UringloadServer target({"--delay", "1ms"});
  ASSERT_TRUE(target.ok());
  uint16_t port_a = FreePort();
  uint16_t port_b = FreePort();
  PrometheusServer prom({LoopbackAddress(port_a), LoopbackAddress(port_b)});
  ASSERT_TRUE(prom.ok());
  auto start = [&](const char* run, uint16_t port, std::vector<std::string> plan) {
    std::vector<std::string> argv = {UringloadBinary(),
                                     "run",
                                     "-q",
                                     "-c",
                                     "20",
                                     "--metrics-listen",
                                     LoopbackAddress(port),
                                     "--metrics-linger",
                                     "120s",
                                     "--metrics-label",
                                     std::string("run=") + run};
    argv.insert(argv.end(), plan.begin(), plan.end());
    argv.push_back(target.Url("/{i}"));
    return std::make_unique<BackgroundProcess>(argv);
  };
  std::unique_ptr<BackgroundProcess> a = start("a", port_a, {"-n", "20000"});
  std::unique_ptr<BackgroundProcess> b = start("b", port_b, {"-d", "3s"});
  ASSERT_TRUE(prom.WaitForTargetsUp(2));
  // Both done (a: all 20,000; b: its elapsed time reached the planned 3 s) and scraped.
  auto value = [&](const std::string& promql) {
    FlatJson r = prom.Query(promql);
    auto it = r.find("data.result.0.value.1");
    return it == r.end() ? -1.0 : std::stod(it->second);
  };
  for (int i = 0; i < 120; ++i) {
    if (value("uringload_requests_completed_total{run=\"a\",outcome=\"ok\"}") == 20000 &&
        value("uringload_elapsed_seconds{run=\"b\"}") >= 3.0 &&
        value("uringload_requests_in_flight{run=\"b\"}") == 0) {
      break;
    }
    usleep(250'000);
  }
  sleep(2);  // One more scrape of both final states.
  int per_run = 0;
  for (const auto& [key, expr] : *dashboard) {
    if (key.size() < 5 || key.compare(key.size() - 5, 5, ".expr") != 0) continue;
    std::string promql = Expand(expr);
    FlatJson result = prom.Query(promql);
    ASSERT_EQ(result["status"], "success") << key << ": " << promql << " -> " << result["error"];
    if (expr.find("role=\"client\"") == std::string::npos ||
        expr.find("by (job, run, run_id") == std::string::npos) {
      continue;
    }
    bool error_only = expr.find("outcome!=\"ok\"") != std::string::npos;  // No errors: empty.
    // Series only --stream and --llm runs have (these runs are neither): empty.
    bool streams_only = expr.find("uringload_stream_") != std::string::npos ||
                        expr.find("uringload_llm_") != std::string::npos;
    if (error_only || streams_only) continue;
    // A scrape that missed its 1 s timeout (a checked binary waiting for a CPU) marks that
    // run's series stale until the next one succeeds: asked again for up to 10 s. A panel that
    // sums the runs into one series never shows both, however long it is asked.
    std::map<std::string, int> runs;
    for (int attempt = 0; attempt < 20; ++attempt) {
      if (attempt > 0) {
        usleep(500'000);
        result = prom.Query(promql);
      }
      runs.clear();
      for (const auto& [k, v] : result) {
        if (k.find(".metric.run") != std::string::npos) ++runs[v];
      }
      if (runs["a"] >= 1 && runs["b"] >= 1) break;
    }
    EXPECT_GE(runs["a"], 1) << key << ": " << promql;
    EXPECT_GE(runs["b"], 1) << key << ": " << promql;
    EXPECT_EQ(runs.count(""), 0u) << key;
    ++per_run;
  }
  EXPECT_GE(per_run, 12);
  // The panels' own expressions, per run: completed counts and progress.
  std::string completed = Expand(
      "sum by (job, run, run_id) (uringload_requests_completed_total{role=\"client\","
      "job=~\"$job\",instance=~\"$instance\",run=~\"$run\",run_id=~\"$run_id\","
      "shard=~\"$shard\"})");
  // Asked again while a stale series (see above) reads as none.
  auto settled = [&](const std::string& promql, double want) {
    double got = value(promql);
    for (int attempt = 0; attempt < 20 && got != want; ++attempt) {
      usleep(500'000);
      got = value(promql);
    }
    return got;
  };
  EXPECT_EQ(settled(absl::StrReplaceAll(completed, {{"run=~\".*\"", "run=\"a\""}}), 20000), 20000);
  std::string progress = (*dashboard)["panels.0.targets.0.expr"];
  ASSERT_NE(progress, "");
  EXPECT_EQ(settled(absl::StrReplaceAll(Expand(progress), {{"run=~\".*\"", "run=\"a\""}}), 1.0),
            1.0);
  EXPECT_EQ(settled(absl::StrReplaceAll(Expand(progress), {{"run=~\".*\"", "run=\"b\""}}), 1.0),
            1.0);
  EXPECT_EQ(a->Stop(SIGINT), 0);
  EXPECT_EQ(b->Stop(SIGINT), 0);
}

}  // namespace
}  // namespace uringload::testing
