// JudgeGenerator: whether the client, not the server, limited a run ("saturated"), and why.
// Open model: the client sent late (schedule lag p99 over the bound), or it left planned sends
// unsent while connections were free. Either model: a worker was busy nearly all the time.
// Requests that waited for a free connection are the server's doing (its latency times -c),
// not the client's: they are noted, never called saturation.
#pragma once

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

struct GeneratorVerdict {
  bool saturated = false;
  std::string reason;  // Saturated: why, in a phrase. Else empty.
  std::string note;    // Not saturated, but the schedule was not kept (connections ran out).
  // Open model: the sends due while the run took requests, and the share of them sent.
  std::optional<uint64_t> planned_sends;
  double sent_share = 1;
  uint64_t late_sends = 0;  // Open model: sends later than the lag bound.
};

// `busy_poll`: the workers never slept (--busy-poll), so late sends were not late wake-ups.
GeneratorVerdict JudgeGenerator(const RunStats& s, bool open_model, absl::Duration lag_bound,
                                bool busy_poll);

}  // namespace uringload::core
