// JudgeGenerator: whether the client, not the server, limited a run ("saturated"), and why.
// Open model: the client sent late (schedule lag p99 over the bound), or it left planned sends
// unsent while connections were free. Either model: a worker was busy nearly all the time, or
// the client did not get the CPU it wanted: a worker waited for one (run-queue delay) or a
// cgroup's quota throttled the process for more than a tenth of the run, or responses waited
// unread for their worker more than a tenth of its run (whatever kept it away: stolen time,
// interrupts, a long loop). Requests that waited
// for a free connection are the server's doing (its latency times -c), not the client's: they
// are noted, never called saturation, unless the client was starved of CPU, which also keeps
// responses unread and connections busy.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "core/run/worker_stats.h"

namespace uringload::core {

inline constexpr double kMinSentShare = 0.99;  // Of the planned sends (open model).
inline constexpr double kMaxBusyShare = 0.95;  // Of a worker's time.
// Late sends from workers busy less than this were waiting to wake up, not working.
inline constexpr double kIdleBusyShare = 0.5;
inline constexpr absl::Duration kDefaultScheduleLagBound = absl::Milliseconds(1);
// A worker that waited for a CPU more than this share of its run, or a process throttled by
// its cgroup's quota more than this share of the run, did not send or read when it should
// have. Both must also exceed kMinCpuStarvation, so a short run's start-up noise does not
// count. An idle 2-CPU VM shows 0.02-0.3% (docs/run.md).
inline constexpr double kMaxCpuStarvedShare = 0.10;
inline constexpr absl::Duration kMinCpuStarvation = absl::Milliseconds(20);

// What limited the client, as Prometheus labels it (uringload_generator_saturated{cause}).
enum class SaturationCause : uint8_t {
  kCpuWait,
  kThrottled,
  kUnread,
  kScheduleLag,
  kUnsent,
  kBusy
};
inline constexpr const char* kSaturationCauseNames[] = {"cpu_wait",     "throttled", "unread",
                                                        "schedule_lag", "unsent",    "busy"};
inline constexpr size_t kSaturationCauseCount = 6;

struct GeneratorVerdict {
  bool saturated = false;
  std::array<bool, kSaturationCauseCount> causes{};  // By SaturationCause.
  std::string reason;                                // Saturated: why, in a phrase. Else empty.
  std::string note;  // Not saturated, but the schedule was not kept (connections ran out).
  // Open model: the sends due while the run took requests, and the share of them sent.
  std::optional<uint64_t> planned_sends;
  double sent_share = 1;
  uint64_t late_sends = 0;  // Open model: sends later than the lag bound.
  // The schedule lag came from sleeping workers waking late (this machine's wake-up latency),
  // not from a busy or starved client.
  bool late_wake_ups = false;
};

// `busy_poll`: the workers never slept (--busy-poll), so late sends were not late wake-ups.
GeneratorVerdict JudgeGenerator(const RunStats& s, bool open_model, absl::Duration lag_bound,
                                bool busy_poll);

}  // namespace uringload::core
