#include "tests/support/prometheus.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/support/ports.h"

namespace uringload::testing {

std::string HttpGet(const std::string& url, const std::vector<std::string>& form) {
  std::vector<std::string> argv = {"curl", "-s", "--max-time", "10"};
  if (!form.empty()) argv.push_back("-G");
  for (const std::string& field : form) argv.insert(argv.end(), {"--data-urlencode", field});
  argv.push_back(url);
  ProcessResult r = RunProcess(argv, 15);
  return r.exit_code == 0 ? r.out : "";
}

PrometheusServer::PrometheusServer(const std::vector<std::string>& targets) {
  char dir[] = "/tmp/uringload-prometheus-XXXXXX";
  dir_ = mkdtemp(dir);
  port_ = FreePort();
  std::ofstream(dir_ + "/prometheus.yml")
      << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
      << "scrape_configs:\n  - job_name: uringload\n    static_configs:\n      - targets: [\""
      << absl::StrJoin(targets, "\", \"") << "\"]\n";
  process_ = std::make_unique<BackgroundProcess>(std::vector<std::string>{
      "/usr/bin/prometheus", "--config.file=" + dir_ + "/prometheus.yml",
      "--storage.tsdb.path=" + dir_ + "/data",
      "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=error"});
  // Listening comes before the storage is open: queries succeed once /-/ready says so. The
  // process must still be running then: a port someone else held would fail its bind.
  ok_ = WaitForListener(port_, 30'000);
  std::string ready_url = absl::StrCat("http://127.0.0.1:", port_, "/-/ready");
  for (int i = 0; ok_ && i < 300; ++i) {
    if (HttpGet(ready_url).find("Ready") != std::string::npos) {
      ok_ = process_->running();
      return;
    }
    usleep(100'000);
  }
  ok_ = false;
}

PrometheusServer::~PrometheusServer() {
  process_->Stop(SIGTERM);
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

bool PrometheusServer::WaitForTargetsUp(int up_targets) const {
  for (int i = 0; i < 300; ++i) {
    absl::StatusOr<FlatJson> targets =
        FlattenJson(HttpGet(absl::StrCat("http://127.0.0.1:", port_, "/api/v1/targets")));
    int up = 0;
    if (targets.ok()) {
      for (const auto& [key, value] : *targets) {
        if (value == "up" && key.find(".health") != std::string::npos) ++up;
      }
    }
    if (up >= up_targets) return true;
    usleep(100'000);
  }
  return false;
}

FlatJson PrometheusServer::Query(const std::string& promql) const {
  std::string body =
      HttpGet(absl::StrCat("http://127.0.0.1:", port_, "/api/v1/query"), {"query=" + promql});
  absl::StatusOr<FlatJson> json = FlattenJson(body);
  return json.ok() ? *json : FlatJson{};
}

PushgatewayServer::PushgatewayServer() : port_(FreePort()) {
  process_ = std::make_unique<BackgroundProcess>(std::vector<std::string>{
      "/usr/bin/prometheus-pushgateway", "--web.listen-address=127.0.0.1:" + std::to_string(port_),
      // No persistence: groups of earlier tests must not reappear.
      "--persistence.file=", "--log.level=error"});
  ok_ = WaitForListener(port_, 30'000);
  usleep(200'000);
  ok_ = ok_ && process_->running();  // It did not fail on a port someone else held.
}

PushgatewayServer::~PushgatewayServer() { process_->Stop(SIGTERM); }

std::string PushgatewayServer::Url() const { return absl::StrCat("http://127.0.0.1:", port_); }

std::string PushgatewayServer::Metrics() const { return HttpGet(Url() + "/metrics"); }

std::vector<Sample> Samples(const std::string& metrics, const std::string& name) {
  std::vector<Sample> out;
  std::istringstream lines(metrics);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name + "{", 0) != 0 && line.rfind(name + " ", 0) != 0) continue;
    size_t space = line.rfind(' ');
    out.push_back({line.substr(0, space), std::stod(line.substr(space + 1))});
  }
  return out;
}

std::string LabelValue(const std::string& series, const std::string& label) {
  // Whole label names only: `le` must not match inside `role`.
  size_t at = std::string::npos;
  for (const char* before : {"{", ","}) {
    at = std::min(at, series.find(before + label + "=\""));
  }
  if (at == std::string::npos) return "";
  at += label.size() + 3;
  return series.substr(at, series.find('"', at) - at);
}

double HistogramQuantile(double q, const std::vector<Sample>& buckets) {
  std::vector<std::pair<double, double>> b;  // (upper bound, cumulative count)
  for (const Sample& s : buckets) {
    std::string le = LabelValue(s.series, "le");
    b.emplace_back(le == "+Inf" ? INFINITY : std::stod(le), s.value);
  }
  std::sort(b.begin(), b.end());
  if (b.size() < 2 || b.back().second == 0) return NAN;
  double rank = q * b.back().second;
  size_t i = 0;
  while (i < b.size() - 1 && b[i].second < rank) ++i;
  if (i == b.size() - 1) return b[b.size() - 2].first;
  double start = i == 0 ? 0 : b[i - 1].first;
  double below = i == 0 ? 0 : b[i - 1].second;
  return start + (b[i].first - start) * ((rank - below) / (b[i].second - below));
}

double SampleValue(const std::string& metrics, const std::string& name,
                   const std::vector<std::string>& labels) {
  std::istringstream lines(metrics);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name + "{", 0) != 0) continue;
    bool all = true;
    for (const std::string& label : labels) all = all && line.find(label) != std::string::npos;
    if (!all) continue;
    return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return -1;
}

}  // namespace uringload::testing
