// What every text and JSON rendering of a run shares: units, rates, quantiles, error causes.
#pragma once

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "core/latency_histogram.h"
#include "core/run/worker_stats.h"

namespace uringload::exporters {

std::string FormatSeconds(double seconds);  // 812.0us, 12.34ms, 1.50s
std::string FormatBytes(uint64_t bytes);    // 512 B, 1.50 KiB
double Rate(uint64_t count, absl::Duration d);
uint64_t Failures(const core::RunStats& s);
// What a cause slot means: a parse failure's reason for parse_error, the expectation missed for
// check_failed, an errno for the rest.
std::string CauseText(size_t outcome, size_t cause);

struct Quantiles {
  double mean, stddev, min, p50, p75, p90, p95, p99, p999, max;  // Seconds.
};
Quantiles LatencyQuantiles(const core::HistogramSnapshot& h);
// A histogram as the summary shows it: "min …, mean … ± …, p50 … p99.9 …, max …" ("n/a (no ok
// response)" when empty).
std::string LatencyLine(const core::HistogramSnapshot& h);

}  // namespace uringload::exporters
