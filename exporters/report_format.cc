#include "exporters/report_format.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/outcome.h"
#include "net/tls_errors.h"

namespace uringload::exporters {

std::string FormatSeconds(double seconds) {
  if (seconds < 1e-3) return absl::StrFormat("%.1fus", seconds * 1e6);
  if (seconds < 1.0) return absl::StrFormat("%.2fms", seconds * 1e3);
  return absl::StrFormat("%.2fs", seconds);
}

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? absl::StrCat(bytes, " B") : absl::StrFormat("%.2f %s", value, units[unit]);
}

double Rate(uint64_t count, absl::Duration d) {
  double seconds = absl::ToDoubleSeconds(d);
  return seconds > 0 ? count / seconds : 0.0;
}

uint64_t Failures(const core::RunStats& s) { return s.completed() - s.outcome(core::Outcome::kOk); }

std::string CauseText(size_t outcome, size_t cause) {
  if (outcome == size_t(core::Outcome::kParseError)) {
    return core::ParseFailureText(static_cast<int>(cause));
  }
  if (outcome == size_t(core::Outcome::kCheckFailed)) {
    return core::CheckFailureText(static_cast<int>(cause));
  }
  if (net::IsTlsCause(static_cast<int>(cause))) return net::TlsCauseText(static_cast<int>(cause));
  if (core::IsHttp2Cause(static_cast<int>(cause))) {
    return core::Http2CauseText(static_cast<int>(cause));
  }
  if (core::IsQuicCause(static_cast<int>(cause)))
    return core::QuicCauseText(static_cast<int>(cause));
  if (cause != 0) return strerror(static_cast<int>(cause));
  return outcome == size_t(core::Outcome::kTimeout) ? "no complete response in time" : "unknown";
}

Quantiles LatencyQuantiles(const core::HistogramSnapshot& h) {
  constexpr double kNs = 1e9;
  return {.mean = h.Mean() / kNs,
          .stddev = h.StdDev() / kNs,
          .min = h.min / kNs,
          .p50 = h.Quantile(0.5) / kNs,
          .p75 = h.Quantile(0.75) / kNs,
          .p90 = h.Quantile(0.9) / kNs,
          .p95 = h.Quantile(0.95) / kNs,
          .p99 = h.Quantile(0.99) / kNs,
          .p999 = h.Quantile(0.999) / kNs,
          .max = static_cast<double>(h.max) / kNs};
}

std::string LatencyLine(const core::HistogramSnapshot& h) {
  if (h.count == 0) return "n/a (no ok response)";
  Quantiles q = LatencyQuantiles(h);
  return absl::StrCat("min ", FormatSeconds(q.min), ", mean ", FormatSeconds(q.mean), " ± ",
                      FormatSeconds(q.stddev), ", p50 ", FormatSeconds(q.p50), ", p75 ",
                      FormatSeconds(q.p75), ", p90 ", FormatSeconds(q.p90), ", p95 ",
                      FormatSeconds(q.p95), ", p99 ", FormatSeconds(q.p99), ", p99.9 ",
                      FormatSeconds(q.p999), ", max ", FormatSeconds(q.max));
}

}  // namespace uringload::exporters
