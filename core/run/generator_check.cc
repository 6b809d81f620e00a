#include "core/run/generator_check.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace uringload::core {

namespace {

void Add(SaturationCause cause, std::string reason, GeneratorVerdict& v,
         std::vector<std::string>& reasons) {
  v.causes[static_cast<size_t>(cause)] = true;
  reasons.push_back(std::move(reason));
}

// Why the client went without the CPU it wanted: none when it did not. A throttled cgroup's
// tasks count as waiting in the run queue too, so only the wait beyond the throttling is
// blamed on other processes or the client's own threads.
void JudgeCpuStarvation(const GeneratorStats& g, GeneratorVerdict& v,
                        std::vector<std::string>& reasons) {
  auto min_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(kMinCpuStarvation));
  bool throttled = g.throttled_share > kMaxCpuStarvedShare && g.throttled_ns > min_ns;
  if (throttled) {
    Add(SaturationCause::kThrottled,
        absl::StrFormat("the CPU quota of cgroup %s throttled the client for %.2f s, %.0f%% of "
                        "the run (%d periods)",
                        g.throttled_cgroup, g.throttled_ns / 1e9, 100 * g.throttled_share,
                        g.throttled_periods),
        v, reasons);
  }
  double beyond = g.run_queue_share - (throttled ? g.throttled_share : 0);
  if (beyond > kMaxCpuStarvedShare && g.run_queue_longest_ns > min_ns) {
    std::string who;
    if (g.cpu_count > 0 && g.workers > g.cpu_count) {
      who = absl::StrFormat("its %d workers share %s %s (fewer threads, -t, or more CPUs)",
                            g.workers, g.cpu_count == 1 ? "CPU" : "CPUs", g.cpus);
    } else {
      who = absl::StrCat("another process ran on ", g.cpu_count == 1 ? "CPU " : "CPUs ", g.cpus);
    }
    Add(SaturationCause::kCpuWait,
        absl::StrFormat("a worker waited %.2f s for a CPU, %.0f%% of its run: %s",
                        g.run_queue_longest_ns / 1e9, 100 * g.run_queue_share, who),
        v, reasons);
  }
  // Whatever kept the worker away (the wait above, time the hypervisor took, interrupts, a
  // long loop): responses sat in its sockets, adding to their latency.
  if (g.unread_share > kMaxCpuStarvedShare && g.unread_ns > min_ns) {
    Add(SaturationCause::kUnread,
        absl::StrFormat("responses waited unread %.2f s, %.0f%% of a worker's run, up to %.0f "
                        "ms at a time",
                        g.unread_ns / 1e9, 100 * g.unread_share, g.unread_longest_ns / 1e6),
        v, reasons);
  }
}

}  // namespace

GeneratorVerdict JudgeGenerator(const RunStats& s, bool open_model, absl::Duration lag_bound,
                                bool busy_poll) {
  GeneratorVerdict v;
  const GeneratorStats& g = s.generator;
  std::vector<std::string> reasons;
  JudgeCpuStarvation(g, v, reasons);
  bool starved = !reasons.empty();
  if (open_model) {
    const HistogramSnapshot& lag = g.schedule_lag;
    auto bound_ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(lag_bound));
    v.late_sends = lag.count - lag.CountAtOrBelow(bound_ns);
    if (lag.count > 0 && lag.Quantile(0.99) > bound_ns) {
      std::string why = absl::StrCat("schedule lag p99 ",
                                     absl::FormatDuration(absl::Nanoseconds(lag.Quantile(0.99))),
                                     " is over the ", absl::FormatDuration(lag_bound), " bound");
      // Measured on a VM at 500 requests/s: p99 0.05-2.2 ms sleeping, 1.3 us busy-polling.
      if (!busy_poll && !starved && g.busiest_share < kIdleBusyShare) {
        v.late_wake_ups = true;
        absl::StrAppendFormat(&why,
                              " while the busiest worker was busy %.0f%% of the time: sends "
                              "waited for a sleeping worker to wake up (this machine's wake-up "
                              "latency); --busy-poll keeps the workers awake",
                              100 * g.busiest_share);
      }
      Add(SaturationCause::kScheduleLag, std::move(why), v, reasons);
    }
    uint64_t planned = s.started + g.unsent;
    v.planned_sends = planned;
    v.sent_share = planned == 0 ? 1.0 : static_cast<double>(s.started) / planned;
    if (v.sent_share < kMinSentShare) {
      std::string shortfall = absl::StrFormat("sent %.1f%% of the planned requests (%d of %d)",
                                              100 * v.sent_share, s.started, planned);
      // A starved client also leaves responses unread, so connections look busy: its
      // requests waiting for one are not the server's doing.
      if (s.late_starts == 0 || starved) {
        Add(SaturationCause::kUnsent, shortfall, v, reasons);
      } else {
        v.note = absl::StrCat(shortfall, "; ", s.late_starts,
                              " waited for a free connection: the server's latency and -c set "
                              "the pace, not the client (raise -c)");
      }
    }
  }
  if (g.busiest_share > kMaxBusyShare) {
    Add(SaturationCause::kBusy,
        absl::StrFormat("a worker was busy %.0f%% of the time (more threads, or "
                        "machines, would have sent more)",
                        100 * g.busiest_share),
        v, reasons);
  }
  v.saturated = !reasons.empty();
  v.reason = absl::StrJoin(reasons, "; ");
  return v;
}

}  // namespace uringload::core
