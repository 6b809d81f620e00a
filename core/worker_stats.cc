#include "core/worker_stats.h"

#include <algorithm>

namespace uringload::core {

uint64_t RunStats::completed() const {
  uint64_t total = 0;
  for (uint64_t n : outcomes) total += n;
  return total;
}

void RunStats::Merge(const RunStats& other) {
  started += other.started;
  for (size_t i = 0; i < outcomes.size(); ++i) outcomes[i] += other.outcomes[i];
  for (size_t i = 0; i < status_codes.size(); ++i) status_codes[i] += other.status_codes[i];
  bytes_sent += other.bytes_sent;
  bytes_received += other.bytes_received;
  connections_opened += other.connections_opened;
  connections_open += other.connections_open;
  connections_peak += other.connections_peak;
  ramp_ns = std::max(ramp_ns, other.ramp_ns);
  for (size_t o = 0; o < causes.size(); ++o) {
    for (size_t e = 0; e < kErrnoSlots; ++e) causes[o][e] += other.causes[o][e];
  }
  latency.Merge(other.latency);
}

void WorkerStats::ConnectionOpened() {
  Bump(connections_opened_);
  uint64_t open = connections_open_.load(std::memory_order_relaxed) + 1;
  connections_open_.store(open, std::memory_order_relaxed);
  if (open > connections_peak_.load(std::memory_order_relaxed)) {
    connections_peak_.store(open, std::memory_order_relaxed);
  }
}

RunStats WorkerStats::Snapshot() const {
  RunStats s;
  // Outcomes (the histogram holds the ok ones) are read before `started` so a snapshot never
  // shows more ended than started.
  s.latency = latency_.Snapshot();
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    s.outcomes[i] = outcomes_[i].load(std::memory_order_relaxed);
  }
  s.outcomes[static_cast<size_t>(Outcome::kOk)] = s.latency.count;
  s.started = started_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < status_codes_.size(); ++i) {
    s.status_codes[i] = status_codes_[i].load(std::memory_order_relaxed);
  }
  s.bytes_sent = bytes_sent_.load(std::memory_order_relaxed);
  s.bytes_received = bytes_received_.load(std::memory_order_relaxed);
  s.connections_opened = connections_opened_.load(std::memory_order_relaxed);
  s.connections_open = connections_open_.load(std::memory_order_relaxed);
  s.connections_peak = connections_peak_.load(std::memory_order_relaxed);
  s.ramp_ns = ramp_ns_.load(std::memory_order_relaxed);
  for (size_t o = 0; o < causes_.size(); ++o) {
    for (size_t e = 0; e < kErrnoSlots; ++e) {
      s.causes[o][e] = causes_[o][e].load(std::memory_order_relaxed);
    }
  }
  return s;
}

}  // namespace uringload::core
