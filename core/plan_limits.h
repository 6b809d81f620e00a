// What the run and serve plans both ask of the machine and of their flags, in one place: the
// CPU count, the descriptor-table cap, range checks and duration flags with their messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace uringload::core {

inline constexpr int64_t kMaxThreads = 1024;

// Online CPUs (at least 1).
uint32_t OnlineCpus();
// Each ring's table of direct descriptors is capped by RLIMIT_NOFILE (docs/architecture.md);
// an unlimited or huge limit counts as 2^20.
uint32_t DescriptorTableLimit();
// Workers pinned with --cpus go round-robin over the list. A count that is a multiple of the
// list's length gives every CPU as many rings: with SO_INCOMING_CPU, 19 server workers on 2
// CPUs gave one of them 3/19 of a CPU's connections, not 2/19, and its table overflowed.
uint32_t EvenOverCpus(uint32_t threads, uint32_t pinned_cpus);
// "<flag> must be between <min> and <max>, got <value>" when outside [min, max].
absl::Status CheckRange(const std::string& flag, int64_t value, int64_t min, int64_t max);
// A duration flag ("30s", "1.5m", "250ms") within [min, max]; with `min_exclusive`, the
// duration must be above min. The message names the flag, the text and the range.
absl::StatusOr<absl::Duration> ParseDurationFlag(const std::string& flag, const std::string& text,
                                                 absl::Duration min, absl::Duration max,
                                                 bool min_exclusive = false);

// A share given as 0.02 or 2%, above 0 and below 1 (--confidence, --precision, a link's
// --loss); the error names `flag`.
absl::StatusOr<double> ParseShare(const std::string& flag, std::string text);

}  // namespace uringload::core
