// Slo: a service-level objective `uringload search` holds each step to (`p99<50ms`,
// `error_rate<0.1%`), in the --fail-if expression language, bounded from above. A step meets
// it only when the data say so with the chosen confidence: for p99<X, the count of requests
// over X must be low enough that a true share of 1% or more over X would have given that few
// with probability at most 1 - confidence (a one-sided binomial test, as MLPerf's loadgen
// accepts a latency percentile); the error rate likewise against its bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/run/worker_stats.h"

namespace uringload::core {

struct Slo {
  std::string expr;  // As given.
  std::string measure;
  bool latency = false;  // A quantile (bound in seconds); else the error rate.
  // A quantile of one of the run's histograms (ttft.p99, tpot.p99, ttfb.p99: null for the
  // request latency's).
  HistogramSnapshot RunStats::*histogram = nullptr;
  double bound = 0;  // Seconds, or the error share.
  // The share of requests allowed beyond the bound: 1 - q for a quantile, the bound itself
  // for the error rate.
  double allowed_share = 0;
};

// `text` as an SLO, or InvalidArgument naming the flag: only p50 p75 p90 p95 p99 p999 (of the
// request latency, or NAME.p99 of a histogram of core/run/run_histograms.h: ttft.p99,
// tpot.p99…) and error_rate, with < or <=.
absl::StatusOr<Slo> ParseSlo(const std::string& text);
absl::StatusOr<std::vector<Slo>> ParseSlos(const std::vector<std::string>& texts);

// The most exceedances among `n` requests that still show, at `confidence`, that the true
// share of them is below `share`: the largest k with P(K <= k) <= 1 - confidence for
// K ~ Binomial(n, share); -1 when even none would (too few requests).
int64_t MaxExceedances(uint64_t n, double share, double confidence);
// The fewest exceedances among `n` requests that show, at `confidence`, that the true share
// is above `share`: the smallest k with P(K >= k) <= 1 - confidence (n + 1: none would).
int64_t FewestExceedancesToFail(uint64_t n, double share, double confidence);
// The fewest requests that can show the share is below `share` (with no exceedance).
uint64_t RequestsToShow(double share, double confidence);

struct SloCheck {
  std::string expr;
  bool met = false;
  bool failed = false;    // Shown to fail; neither this nor met: too few requests to decide.
  double measured = 0;    // The quantile in seconds, or the error rate.
  uint64_t requests = 0;  // Ok requests (latency), or completed ones (error rate).
  uint64_t beyond = 0;    // Of them, over the bound, or failed.
  int64_t allowed = 0;    // MaxExceedances for them.
  int64_t failing = 0;    // FewestExceedancesToFail for them.
};

// `uncorrected`: judge latency from each send (the server's figure) instead of from the
// intended start.
SloCheck CheckSlo(const Slo& slo, const RunStats& stats, double confidence,
                  bool uncorrected = false);

}  // namespace uringload::core
