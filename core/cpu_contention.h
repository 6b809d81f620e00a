// What a worker cannot see from inside: the time it was runnable but waited for a CPU (the
// scheduler's run-queue delay, the second field of /proc/.../schedstat), and the time the
// process's cgroup was throttled by its CPU quota (cpu.stat, cgroup v2 or v1's cpu
// controller). A starved client looks idle to itself; these say that it was not.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace uringload::core {

// The run-queue delay in a schedstat line ("<on-CPU ns> <run-queue ns> <time slices>").
std::optional<uint64_t> ParseRunQueueNanos(std::string_view schedstat);
// The calling thread's run-queue delay so far; none where the kernel keeps no schedstat.
std::optional<uint64_t> ThisThreadRunQueueNanos();
// The same for thread `tid` of this process (none once it has exited).
std::optional<uint64_t> RunQueueNanosOfThread(pid_t tid);

struct ThrottleCount {
  uint64_t throttled_ns = 0;
  uint64_t periods = 0;  // Quota periods in which it was throttled.
};
// A cpu.stat file's throttling: v2's throttled_usec, or v1's throttled_time (ns); none when
// the file has neither (the cpu controller is not enabled there).
std::optional<ThrottleCount> ParseCpuStat(std::string_view text);

// The cpu.stat files of the cgroup a process is in and of its ancestors up to the
// hierarchy's mount, from /proc/self/cgroup and /proc/self/mountinfo's texts: an ancestor's
// quota throttles its descendants too.
std::vector<std::string> CpuStatPaths(std::string_view proc_cgroup, std::string_view mountinfo);

// Throttling since construction, of whichever of this process's cgroups throttled it most.
class CgroupThrottleMeter {
 public:
  struct Reading {
    ThrottleCount count;
    std::string cgroup;  // The cpu.stat file's folder ("" when nothing was throttled).
  };
  // This process's cgroups (none found: every reading is zero).
  CgroupThrottleMeter();
  explicit CgroupThrottleMeter(std::vector<std::string> cpu_stat_paths);
  Reading Since() const;

 private:
  struct Source {
    std::string path;
    ThrottleCount at_start;
  };
  std::vector<Source> sources_;
};

}  // namespace uringload::core
