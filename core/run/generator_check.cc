#include "core/run/generator_check.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace uringload::core {

GeneratorVerdict JudgeGenerator(const RunStats& s, bool open_model, absl::Duration lag_bound) {
  GeneratorVerdict v;
  const GeneratorStats& g = s.generator;
  std::vector<std::string> reasons;
  if (open_model) {
    const HistogramSnapshot& lag = g.schedule_lag;
    auto bound_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(lag_bound));
    v.late_sends = lag.count - lag.CountAtOrBelow(bound_ns);
    if (lag.count > 0 && lag.Quantile(0.99) > bound_ns) {
      reasons.push_back(absl::StrCat("schedule lag p99 ",
                                     absl::FormatDuration(absl::Nanoseconds(lag.Quantile(0.99))),
                                     " is over the ", absl::FormatDuration(lag_bound), " bound"));
    }
    uint64_t planned = s.started + g.unsent;
    v.planned_sends = planned;
    v.sent_share = planned == 0 ? 1.0 : static_cast<double>(s.started) / planned;
    if (v.sent_share < kMinSentShare) {
      std::string shortfall = absl::StrFormat("sent %.1f%% of the planned requests (%d of %d)",
                                              100 * v.sent_share, s.started, planned);
      if (s.late_starts == 0) {
        reasons.push_back(shortfall);
      } else {
        v.note = absl::StrCat(shortfall, "; ", s.late_starts,
                              " waited for a free connection: the server's latency and -c set "
                              "the pace, not the client (raise -c)");
      }
    }
  }
  if (g.busiest_share > kMaxBusyShare) {
    reasons.push_back(
        absl::StrFormat("a worker was busy %.0f%% of the time (more threads, or "
                        "machines, would have sent more)",
                        100 * g.busiest_share));
  }
  v.saturated = !reasons.empty();
  v.reason = absl::StrJoin(reasons, "; ");
  return v;
}

}  // namespace uringload::core
