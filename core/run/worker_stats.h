// WorkerStats: one worker's counters and latency histogram, written only by that worker and
// read at any time by the reporter (relaxed atomics). RunStats is a plain, mergeable copy.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "core/outcome.h"
#include "core/run/latency_histogram.h"
#include "core/single_writer.h"

namespace uringload::core {

inline constexpr size_t kStatusCodeSlots = 1000;  // Codes 0-999; llhttp accepts 3 digits.
// Causes of failed requests, by errno (0 = no errno: a parse error or a request timeout).
inline constexpr size_t kErrnoSlots = 134;
using CauseCounts = std::array<std::array<uint64_t, kErrnoSlots>, kOutcomeCount>;

struct RunStats {
  uint64_t started = 0;
  std::array<uint64_t, kOutcomeCount> outcomes{};
  std::array<uint64_t, kStatusCodeSlots> status_codes{};
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  uint64_t connections_opened = 0;
  uint64_t connections_open = 0;
  uint64_t connections_peak = 0;  // Sum of per-worker peaks: an upper bound of the true peak.
  uint64_t ramp_ns = 0;           // Until every connection's first connect ended (slowest worker).
  CauseCounts causes{};           // [outcome][errno] for every outcome but ok.
  HistogramSnapshot latency;

  uint64_t completed() const;  // Requests with an outcome.
  uint64_t in_flight() const { return started - completed(); }
  uint64_t outcome(Outcome o) const { return outcomes[static_cast<size_t>(o)]; }
  void Merge(const RunStats& other);
};

class WorkerStats {
 public:
  void RequestStarted() { Add(started_); }
  // A request that failed; `error` is the errno behind it (0 if none), kept for the summary's
  // error details.
  void RequestFailed(Outcome o, int error = 0) {
    size_t slot = error > 0 && static_cast<size_t>(error) < kErrnoSlots ? error : 0;
    Add(outcomes_[static_cast<size_t>(o)]);
    Add(causes_[static_cast<size_t>(o)][slot]);
  }
  // A request that ended `ok`. The latency histogram is the ok counter: a snapshot takes the
  // ok count from the same bucket reads as the histogram, so a scrape's `_count`, its `+Inf`
  // bucket and outcome="ok" are always equal (separate counters read a moment apart were
  // seen 60 apart: _count 106,637 with +Inf 106,577).
  void RequestSucceeded(int status, uint64_t latency_ns) {
    Add(status_codes_[static_cast<size_t>(status) < kStatusCodeSlots ? status : 0]);
    latency_.Record(latency_ns);
  }
  void BytesSent(uint64_t n) { Add(bytes_sent_, n); }
  void BytesReceived(uint64_t n) { Add(bytes_received_, n); }
  void ConnectionOpened();
  void ConnectionClosed() { Write(connections_open_, Read(connections_open_) - 1); }

  void RampFinished(uint64_t ns) { Write(ramp_ns_, ns); }

  RunStats Snapshot() const;

 private:
  SingleWriterCounter started_{0};
  std::array<SingleWriterCounter, kOutcomeCount> outcomes_{};
  std::array<SingleWriterCounter, kStatusCodeSlots> status_codes_{};
  SingleWriterCounter bytes_sent_{0};
  SingleWriterCounter bytes_received_{0};
  SingleWriterCounter connections_opened_{0};
  SingleWriterCounter connections_open_{0};
  SingleWriterCounter connections_peak_{0};
  SingleWriterCounter ramp_ns_{0};
  std::array<std::array<SingleWriterCounter, kErrnoSlots>, kOutcomeCount> causes_{};
  LatencyHistogram latency_;
};

}  // namespace uringload::core
