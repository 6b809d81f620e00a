#include "core/run/arrival_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace uringload::core {
namespace {

constexpr uint64_t kArrivals = 200'000;

// The gaps between the first kArrivals arrivals at `rate` per second, in seconds.
std::vector<double> Gaps(ArrivalSchedule schedule) {
  std::vector<double> gaps;
  int64_t last = schedule.OffsetNs(0);
  for (uint64_t k = 1; k < kArrivals; ++k) {
    int64_t at = schedule.OffsetNs(k);
    EXPECT_GE(at, last);
    gaps.push_back((at - last) / 1e9);
    last = at;
  }
  return gaps;
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / v.size();
}

// The coefficient of variation: 1 for exponential gaps, 1/sqrt(K) for gamma gaps of shape K,
// 0 for even ones.
double Variation(const std::vector<double>& v) {
  double mean = Mean(v);
  double squares = 0;
  for (double x : v) squares += (x - mean) * (x - mean);
  return std::sqrt(squares / v.size()) / mean;
}

TEST(ArrivalScheduleTest, PoissonGapsHaveTheRatesMeanAndAnExponentialsSpread) {
  std::vector<double> gaps =
      Gaps(ArrivalSchedule(1000, 0, {.kind = ArrivalProcess::Kind::kPoisson, .seed = 7}));
  EXPECT_NEAR(Mean(gaps), 0.001, 0.001 * 0.01);
  EXPECT_NEAR(Variation(gaps), 1.0, 0.02);
  std::vector<double> even = Gaps(ArrivalSchedule(1000, 0));
  EXPECT_NEAR(Variation(even), 0.0, 1e-6);
}

TEST(ArrivalScheduleTest, GammaShapeSetsTheBurstiness) {
  for (double shape : {0.25, 4.0}) {
    std::vector<double> gaps = Gaps(
        ArrivalSchedule(500, 0, {.kind = ArrivalProcess::Kind::kGamma, .shape = shape, .seed = 3}));
    EXPECT_NEAR(Mean(gaps), 0.002, 0.002 * 0.02) << shape;
    EXPECT_NEAR(Variation(gaps), 1 / std::sqrt(shape), 0.03) << shape;
  }
}

// The same seed gives the same times, read in any order; another seed other times. The first
// request is due at the start, as with even arrivals.
TEST(ArrivalScheduleTest, ASeedGivesTheSameTimesWhateverTheOrderOfQueries) {
  ArrivalProcess poisson{.kind = ArrivalProcess::Kind::kPoisson, .seed = 11};
  ArrivalSchedule a(100, 2, poisson);
  ArrivalSchedule b(100, 2, poisson);
  std::vector<int64_t> forward;
  for (uint64_t k = 0; k < 1000; ++k) forward.push_back(a.OffsetNs(k));
  EXPECT_EQ(forward[0], 0);
  for (uint64_t k = 1000; k-- > 0;) EXPECT_EQ(b.OffsetNs(k), forward[k]) << k;       // Backwards.
  for (uint64_t k = 0; k < 1000; k += 7) EXPECT_EQ(b.OffsetNs(k), forward[k]) << k;  // Strided.
  poisson.seed = 12;
  EXPECT_NE(ArrivalSchedule(100, 2, poisson).OffsetNs(500), forward[500]);
}

// DueBy is OffsetNs's inverse, for the clock moving forward and, after a restart, back.
TEST(ArrivalScheduleTest, DueByCountsTheArrivalsAtOrBeforeAnOffset) {
  ArrivalProcess gamma{.kind = ArrivalProcess::Kind::kGamma, .shape = 0.5, .seed = 5};
  ArrivalSchedule schedule(200, 1, gamma);
  ArrivalSchedule reference(200, 1, gamma);
  std::vector<int64_t> at;
  for (uint64_t k = 0; k <= 2000; ++k) at.push_back(reference.OffsetNs(k));
  for (uint64_t k = 0; k < 2000; ++k) {
    if (at[k + 1] == at[k]) continue;  // Tied: DueBy counts both.
    EXPECT_EQ(schedule.DueBy(at[k]), k + 1) << k;
  }
  for (uint64_t k = 1; k < 2000; k += 97) {
    if (at[k - 1] < at[k]) {
      EXPECT_EQ(schedule.DueBy(at[k] - 1), k) << k;  // Back in time.
    }
  }
  EXPECT_EQ(schedule.DueBy(-1), 0u);
}

// With a ramp, random arrivals keep the even schedule's curve: about R·t²/(2D) by t < D.
TEST(ArrivalScheduleTest, RandomArrivalsFollowTheRamp) {
  ArrivalSchedule schedule(1000, 10, {.kind = ArrivalProcess::Kind::kPoisson, .seed = 9});
  EXPECT_NEAR(static_cast<double>(schedule.DueBy(5'000'000'000)), 1000 * 25 / 20.0, 150);
  EXPECT_NEAR(static_cast<double>(schedule.DueBy(20'000'000'000)), 1000 * 15.0, 400);
}

}  // namespace
}  // namespace uringload::core
