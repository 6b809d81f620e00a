#include "core/cpu_pinning.h"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace uringload::core {
namespace {

absl::Status Bad(absl::string_view text, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--cpus: '", text, "' ", why, " (a list like 0-3,6)"));
}

}  // namespace

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

absl::StatusOr<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<bool> allowed(CPU_SETSIZE, false);
  for (int cpu : AllowedCpus()) allowed[static_cast<size_t>(cpu)] = true;
  std::vector<int> cpus;
  std::vector<bool> seen(CPU_SETSIZE, false);
  absl::string_view all(text.data(), text.size());  // Debian's absl has its own string_view.
  if (all.empty()) return Bad(all, "is empty");
  for (absl::string_view part : absl::StrSplit(all, ',')) {
    std::pair<absl::string_view, absl::string_view> range = absl::StrSplit(part, '-');
    int first = 0, last = 0;
    bool is_range = part.find('-') != absl::string_view::npos;
    if (!absl::SimpleAtoi(range.first, &first) ||
        !absl::SimpleAtoi(is_range ? range.second : range.first, &last) || first < 0 ||
        last < first || range.first.empty() || (is_range && range.second.empty())) {
      return Bad(all, absl::StrCat("has '", part, "', not a CPU number or a range low-high"));
    }
    for (int cpu = first; cpu <= last; ++cpu) {
      if (cpu >= CPU_SETSIZE || !allowed[static_cast<size_t>(cpu)]) {
        return Bad(all, absl::StrCat("names CPU ", cpu, ", which this process may not run on"));
      }
      if (seen[static_cast<size_t>(cpu)]) {
        return Bad(all, absl::StrCat("names CPU ", cpu, " twice"));
      }
      seen[static_cast<size_t>(cpu)] = true;
      cpus.push_back(cpu);
    }
  }
  return cpus;
}

absl::Status PinThisThread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (int error = pthread_setaffinity_np(pthread_self(), sizeof(set), &set); error != 0) {
    return absl::UnavailableError(
        absl::StrCat("pinning a worker to CPU ", cpu, ": ", strerror(error)));
  }
  return absl::OkStatus();
}

std::string FormatCpuList(std::span<const int> cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    absl::StrAppend(&out, out.empty() ? "" : ",", cpus[i]);
    if (j > i) absl::StrAppend(&out, "-", cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace uringload::core
