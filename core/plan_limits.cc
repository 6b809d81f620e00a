#include "core/plan_limits.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace uringload::core {

uint32_t OnlineCpus() { return static_cast<uint32_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))); }

uint32_t DescriptorTableLimit() {
  constexpr rlim_t kCap = 1u << 20;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kCap;
  return static_cast<uint32_t>(std::min(limit.rlim_cur, kCap));
}

uint32_t EvenOverCpus(uint32_t threads, uint32_t pinned_cpus) {
  if (pinned_cpus <= 1) return threads;
  return (threads + pinned_cpus - 1) / pinned_cpus * pinned_cpus;
}

absl::Status CheckRange(const std::string& flag, int64_t value, int64_t min, int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(flag, " must be between ", min, " and ", max, ", got ", value));
}

absl::StatusOr<absl::Duration> ParseDurationFlag(const std::string& flag, const std::string& text,
                                                 absl::Duration min, absl::Duration max,
                                                 bool min_exclusive) {
  absl::Duration d;
  bool ok = absl::ParseDuration(text, &d) && d <= max && (min_exclusive ? d > min : d >= min);
  if (ok) return d;
  return absl::InvalidArgumentError(absl::StrCat(
      flag, ": invalid duration '", text, "' (", min_exclusive ? "more than " : "from ",
      absl::FormatDuration(min), min_exclusive ? ", at most " : " to ", absl::FormatDuration(max),
      "; e.g. 30s, 1.5m, 250ms)"));
}

absl::StatusOr<double> ParseShare(const std::string& flag, std::string text) {
  std::string given = text;
  bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value)) value = -1;
  if (percent) value /= 100;
  if (value <= 0 || value >= 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " must be a share above 0 and below 1 (0.02 or 2%), got '", given, "'"));
  }
  return value;
}

}  // namespace uringload::core
