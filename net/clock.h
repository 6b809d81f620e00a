// MonotonicNanos: the hot path's clock (CLOCK_MONOTONIC through the vDSO, no syscall).
// ThreadCpuNanos: the calling thread's CPU time (a syscall: read once per run, not per request).
#pragma once

#include <time.h>

#include <cstdint>

namespace uringload::net {

inline int64_t MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

inline int64_t ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace uringload::net
