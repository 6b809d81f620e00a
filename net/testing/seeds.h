// Seeds for the seeded simulations (TigerBeetle's way): 1..count, or the one seed that
// URINGLOAD_SIM_SEED names, to replay a failure alone. A URINGLOAD_CHECK that fires aborts the
// process, which no test framework reports: SeedGuard prints the seed that was running then.
#pragma once

#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace uringload::net {

inline std::vector<uint64_t> SimulationSeeds(uint64_t count) {
  if (const char* one = std::getenv("URINGLOAD_SIM_SEED")) return {std::strtoull(one, nullptr, 10)};
  std::vector<uint64_t> seeds;
  for (uint64_t s = 1; s <= count; ++s) seeds.push_back(s);
  return seeds;
}

// While it lives, an abort first prints "seed N aborted; replay it with URINGLOAD_SIM_SEED=N".
class SeedGuard {
 public:
  SeedGuard() { std::signal(SIGABRT, OnAbort); }
  ~SeedGuard() { std::signal(SIGABRT, SIG_DFL); }
  SeedGuard(const SeedGuard&) = delete;
  SeedGuard& operator=(const SeedGuard&) = delete;
  void Running(uint64_t seed) { seed_ = static_cast<long long>(seed); }

 private:
  static void OnAbort(int) {
    char line[128];
    int n =
        std::snprintf(line, sizeof line,
                      "\nsimulation: seed %lld aborted; replay it with URINGLOAD_SIM_SEED=%lld\n",
                      static_cast<long long>(seed_), static_cast<long long>(seed_));
    if (n > 0) (void)!write(2, line, static_cast<size_t>(n));
    std::signal(SIGABRT, SIG_DFL);
    std::raise(SIGABRT);
  }
  static inline volatile std::sig_atomic_t seed_ = -1;
};

}  // namespace uringload::net
