// MonotonicNanos: the hot path's clock (CLOCK_MONOTONIC through the vDSO, no syscall).
#pragma once

#include <time.h>

#include <cstdint>

namespace uringload::net {

inline int64_t MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace uringload::net
