// --cpus: the CPUs the worker threads of `run` and `serve` are pinned to, worker i on the
// (i mod size)-th CPU of the list. With both sides on one machine and the same list, `serve`
// also steers each connection to the worker on the CPU its SYN arrived on (SO_INCOMING_CPU on
// its listeners); loopback delivers a packet in the sender's CPU, so a connection's client
// worker, server worker and both directions of its traffic stay on one CPU: no cross-CPU
// wake-ups (docs/performance.md, "Measurements behind the code").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::core {

// The CPUs this process may run on (its affinity mask), in increasing order.
std::vector<int> AllowedCpus();

// Parses a CPU list in taskset's syntax ("0-3,6"), in the order written. Every CPU must be
// one this process may run on (its affinity mask), none listed twice.
absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text);

// The CPU of worker `index`: cpus[index % cpus.size()], or -1 when `cpus` is empty.
inline int CpuOfWorker(std::span<const int> cpus, uint32_t index) {
  return cpus.empty() ? -1 : cpus[index % cpus.size()];
}

// Pins the calling thread to `cpu`.
absl::Status PinThisThread(int cpu);

// "0-3,6" again, for summaries: runs of consecutive CPUs as ranges.
std::string FormatCpuList(std::span<const int> cpus);

}  // namespace uringload::core
