#include "net/base/check.h"

#include <gtest/gtest.h>

namespace uringload {
namespace {

int Increment(int* calls) { return ++*calls; }

TEST(CheckTest, PassesSilentlyAndEvaluatesOnce) {
  int calls = 0;
  URINGLOAD_CHECK(Increment(&calls) == 1, "calls %d", calls);
  EXPECT_EQ(calls, 1);
}

// A broken invariant aborts in every build (this test runs in Release too) and names where,
// what and the caller's context.
TEST(CheckDeathTest, AbortsWithTheConditionAndContext) {
  uint32_t slot = 7;
  int state = 3;
  EXPECT_DEATH(URINGLOAD_CHECK(slot == 8, "slot %u state %d", slot, state),
               "invariant broken at .*check_test.cc:[0-9]+: slot == 8 \\(slot 7 state 3\\)");
}

}  // namespace
}  // namespace uringload
