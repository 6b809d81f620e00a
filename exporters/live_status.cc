#include "exporters/live_status.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "exporters/report_format.h"

namespace uringload::exporters {
namespace {

constexpr int kBarWidth = 20;

std::string Bar(double fraction) {
  int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kBarWidth);
  return absl::StrCat("[", std::string(filled, '#'), std::string(kBarWidth - filled, '-'), "]");
}

}  // namespace

std::string FormatLiveStatus(const LiveStatus& s) {
  const core::RunStats& now = *s.now;
  const core::RunStats& then = *s.window_start;
  double rate = s.window_seconds > 0 ? (now.completed() - then.completed()) / s.window_seconds : 0;
  core::HistogramSnapshot recent = now.latency.Since(then.latency);
  std::string out;
  double elapsed = absl::ToDoubleSeconds(s.elapsed);
  if (s.planned) {
    double done = static_cast<double>(now.completed() + now.warmup_completed) / *s.planned;
    double left = rate > 0 ? (*s.planned - now.completed() - now.warmup_completed) / rate : -1;
    out = absl::StrFormat("%s %3.0f%% %s left", Bar(done), 100 * done,
                          left >= 0 ? FormatSeconds(left) : std::string("--"));
  } else if (s.planned_duration) {
    double total = absl::ToDoubleSeconds(*s.planned_duration);
    out = absl::StrFormat("%s %3.0f%% %s left", Bar(elapsed / total), 100 * elapsed / total,
                          FormatSeconds(std::max(total - elapsed, 0.0)));
  }
  absl::StrAppend(
      &out, absl::StrFormat(
                "  %s  %.0f req/s  p99 %s  in flight %d", FormatSeconds(elapsed), rate,
                recent.count > 0 ? FormatSeconds(recent.Quantile(0.99) / 1e9) : std::string("--"),
                now.in_flight()));
  for (size_t o = 1; o < core::kOutcomeCount; ++o) {
    if (now.outcomes[o] > 0)
      absl::StrAppend(&out, "  ", core::kOutcomeNames[o], " ", now.outcomes[o]);
  }
  return out;
}

}  // namespace uringload::exporters
