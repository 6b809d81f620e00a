#include "core/run/generator_check.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace uringload::core {

GeneratorVerdict JudgeGenerator(const RunStats& s, bool open_model, absl::Duration lag_bound,
                                bool busy_poll) {
  GeneratorVerdict v;
  const GeneratorStats& g = s.generator;
  std::vector<std::string> reasons;
  if (open_model) {
    const HistogramSnapshot& lag = g.schedule_lag;
    auto bound_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(lag_bound));
    v.late_sends = lag.count - lag.CountAtOrBelow(bound_ns);
    if (lag.count > 0 && lag.Quantile(0.99) > bound_ns) {
      std::string why = absl::StrCat("schedule lag p99 ",
                                     absl::FormatDuration(absl::Nanoseconds(lag.Quantile(0.99))),
                                     " is over the ", absl::FormatDuration(lag_bound), " bound");
      // Measured on a VM at 500 requests/s: p99 0.05-2.2 ms sleeping, 1.3 us busy-polling.
      if (!busy_poll && g.busiest_share < kIdleBusyShare) {
        absl::StrAppendFormat(&why,
                              " while the busiest worker was busy %.0f%% of the time: sends "
                              "waited for a sleeping worker to wake up (this machine's wake-up "
                              "latency, or another process on its CPUs); --busy-poll keeps the "
                              "workers awake",
                              100 * g.busiest_share);
      }
      reasons.push_back(std::move(why));
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
