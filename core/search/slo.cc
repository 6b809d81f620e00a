#include "core/search/slo.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/run/thresholds.h"
#include "net/base/status_macros.h"

namespace uringload::core {
namespace {

// The quantile a latency measure names (p50 -> 0.5); 0 for others.
double QuantileOf(const std::string& measure) {
  if (measure == "p999") return 0.999;
  for (const char* name : {"p50", "p75", "p90", "p95", "p99"}) {
    if (measure == name) return std::stod(measure.substr(1)) / 100;
  }
  return 0;
}

}  // namespace

absl::StatusOr<Slo> ParseSlo(const std::string& text) {
  URINGLOAD_ASSIGN_OR_RETURN(Threshold t, ParseThreshold(text, "--slo"));
  auto fail = [&text](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("--slo '", text, "': ", why));
  };
  if (t.op != Threshold::Op::kLess && t.op != Threshold::Op::kLessEqual) {
    return fail("an objective bounds a measure from above: use < or <=");
  }
  Slo slo{
      .expr = text, .measure = t.measure, .latency = false, .histogram = nullptr, .bound = t.bound};
  std::string_view statistic;
  const HistogramRow* row = HistogramMeasure(t.measure, &statistic);
  double q = QuantileOf(row != nullptr ? std::string(statistic) : t.measure);
  if (row != nullptr && q > 0) slo.histogram = row->member;
  if (q > 0) {
    slo.latency = true;
    slo.allowed_share = 1 - q;
  } else if (t.measure == "error_rate") {
    if (t.bound <= 0) return fail("an error rate below 0 cannot be met");
    slo.allowed_share = t.bound;
  } else {
    return fail(
        "search judges p50 p75 p90 p95 p99 p999 (of the latency, or of a histogram: ttft.p99, "
        "tpot.p99, ttfb.p99…) and error_rate");
  }
  return slo;
}

absl::StatusOr<std::vector<Slo>> ParseSlos(const std::vector<std::string>& texts) {
  std::vector<Slo> slos;
  for (const std::string& text : texts) {
    URINGLOAD_ASSIGN_OR_RETURN(Slo slo, ParseSlo(text));
    slos.push_back(slo);
  }
  return slos;
}

// Sums the binomial probabilities from k = 0 up, each from the last (in logs: n may be
// millions), until the sum passes 1 - confidence.
int64_t MaxExceedances(uint64_t n, double share, double confidence) {
  if (share >= 1) return static_cast<int64_t>(n);
  double alpha = 1 - confidence;
  double nd = static_cast<double>(n);
  double log_term = nd * std::log1p(-share);  // P(K = 0).
  double log_ratio = std::log(share) - std::log1p(-share);
  double cdf = 0;
  for (uint64_t k = 0; k <= n; ++k) {
    cdf += std::exp(log_term);
    if (cdf > alpha) return static_cast<int64_t>(k) - 1;
    double kd = static_cast<double>(k);
    log_term += std::log((nd - kd) / (kd + 1)) + log_ratio;
  }
  return static_cast<int64_t>(n);
}

int64_t FewestExceedancesToFail(uint64_t n, double share, double confidence) {
  if (share <= 0) return 1;
  if (share >= 1) return static_cast<int64_t>(n) + 1;
  double alpha = 1 - confidence;
  double nd = static_cast<double>(n);
  double log_term = nd * std::log1p(-share);  // P(K = 0).
  double log_ratio = std::log(share) - std::log1p(-share);
  double below = 0;  // P(K < k).
  for (uint64_t k = 0; k <= n; ++k) {
    if (1 - below <= alpha) return static_cast<int64_t>(k);
    below += std::exp(log_term);
    double kd = static_cast<double>(k);
    log_term += std::log((nd - kd) / (kd + 1)) + log_ratio;
  }
  return static_cast<int64_t>(n) + 1;
}

uint64_t RequestsToShow(double share, double confidence) {
  if (share >= 1) return 1;
  // P(K = 0) = (1 - share)^n <= 1 - confidence.
  auto n = static_cast<uint64_t>(std::ceil(std::log(1 - confidence) / std::log1p(-share)));
  while (n > 1 && MaxExceedances(n - 1, share, confidence) >= 0) --n;  // Rounding.
  while (MaxExceedances(n, share, confidence) < 0) ++n;
  return n;
}

SloCheck CheckSlo(const Slo& slo, const RunStats& s, double confidence, bool uncorrected) {
  SloCheck c{.expr = slo.expr};
  if (slo.latency) {
    const HistogramSnapshot& h = slo.histogram != nullptr ? s.*slo.histogram
                                 : uncorrected            ? s.latency_uncorrected
                                                          : s.latency;
    c.requests = h.count;
    // Strictly under the bound for <: values at it count as beyond (within a bucket's 0.4%).
    auto bound_ns = static_cast<uint64_t>(std::llround(slo.bound * 1e9));
    c.beyond = h.count - h.CountAtOrBelow(bound_ns);
    c.measured = h.count == 0 ? 0 : h.Quantile(1 - slo.allowed_share) / 1e9;
  } else {
    c.requests = s.completed();
    c.beyond = c.requests - s.outcome(Outcome::kOk);
    c.measured = c.requests == 0 ? 0 : static_cast<double>(c.beyond) / c.requests;
  }
  c.allowed = MaxExceedances(c.requests, slo.allowed_share, confidence);
  c.met = c.requests > 0 && static_cast<int64_t>(c.beyond) <= c.allowed;
  c.failing = FewestExceedancesToFail(c.requests, slo.allowed_share, confidence);
  c.failed = c.requests > 0 && static_cast<int64_t>(c.beyond) >= c.failing;
  return c;
}

}  // namespace uringload::core
