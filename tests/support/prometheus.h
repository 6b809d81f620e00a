// Real Prometheus and Pushgateway servers (Debian's binaries) for end-to-end tests, each on a
// free 127.0.0.1 port in a temporary directory, stopped with the object. Queries go through
// curl to the servers' HTTP APIs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/process.h"

namespace uringload::testing {

// GET (or, with `form`, a urlencoded query string) through curl; the body, or "" on failure.
std::string HttpGet(const std::string& url, const std::vector<std::string>& form = {});

class PrometheusServer {
 public:
  // Scrapes `targets` ("127.0.0.1:PORT") every second.
  explicit PrometheusServer(const std::vector<std::string>& targets);
  ~PrometheusServer();
  bool ok() const { return ok_; }
  // Prometheus activates static targets only after a few seconds: waits until it has
  // scraped `up_targets` of them successfully (at most 30 s).
  bool WaitForTargetsUp(int up_targets) const;
  // /api/v1/query for `promql`, flattened ("status", "data.result.0.value.1", ...).
  FlatJson Query(const std::string& promql) const;

 private:
  std::string dir_;
  uint16_t port_ = 0;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

class PushgatewayServer {
 public:
  PushgatewayServer();
  ~PushgatewayServer();
  bool ok() const { return ok_; }
  std::string Url() const;
  std::string Metrics() const;  // The text it exposes on /metrics.

 private:
  uint16_t port_ = 0;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

struct Sample {
  std::string series;  // Name and labels, as in the text: name{a="b",...}
  double value;
};
// Every sample of metric `name` in Prometheus text `metrics`.
std::vector<Sample> Samples(const std::string& metrics, const std::string& name);
// The value of `label` in a series ("" when absent).
std::string LabelValue(const std::string& series, const std::string& label);
// What Prometheus' histogram_quantile(q, ...) gives for one histogram's `_bucket` samples:
// the bucket holding rank q * count, interpolated linearly inside it (the first bucket starts
// at 0; a rank in +Inf gives the highest finite bound).
double HistogramQuantile(double q, const std::vector<Sample>& buckets);

// The value of the sample in Prometheus text `metrics` whose line starts with `name{` and
// contains every one of `labels` (e.g. outcome="ok"); -1 if none.
double SampleValue(const std::string& metrics, const std::string& name,
                   const std::vector<std::string>& labels);

}  // namespace uringload::testing
