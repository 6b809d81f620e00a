// The seed loop every client simulation runs: each seed's run (one with URINGLOAD_SIM_SEED),
// its trace and replay line, the checks every run must pass (every started request ended in
// exactly one outcome, every connection closed), and the outcomes added up, so the test can
// check that the simulation made every kind of ending happen.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "core/run/run_stats.h"
#include "net/testing/seeds.h"

namespace uringload::core::test_support {

struct SeedTotals {
  std::array<uint64_t, kOutcomeCount> outcomes{};
  uint64_t retried = 0;
  bool many = false;  // More than one seed ran (not a replay of one): the totals mean something.
};

// `simulate(seed)` returns a result with the run's `stats` (RunStats) and the `requests` it
// started; it may check more of its own. Stops at the first failing seed.
template <typename Simulate>
SeedTotals RunSeeds(uint64_t seeds, Simulate simulate) {
  net::SeedGuard guard;
  SeedTotals totals;
  for (uint64_t seed : net::SimulationSeeds(seeds)) {
    guard.Running(seed);
    SCOPED_TRACE(testing::Message()
                 << "seed " << seed << " (replay: URINGLOAD_SIM_SEED=" << seed << ")");
    auto r = simulate(seed);
    const RunStats& s = r.stats;
    EXPECT_EQ(s.started, r.requests);
    EXPECT_EQ(s.completed(), s.started);
    EXPECT_EQ(s.connections_open, 0u);
    for (size_t k = 0; k < kOutcomeCount; ++k) totals.outcomes[k] += s.outcomes[k];
    totals.retried += s.retried;
    if (testing::Test::HasFailure()) break;
  }
  totals.many = net::SimulationSeeds(seeds).size() > 1;
  return totals;
}

}  // namespace uringload::core::test_support
