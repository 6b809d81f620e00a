#include "core/run/request_pacer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace uringload::core {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

// How many requests all `workers` pacers have taken by `t_ns` (they take all that are due).
uint64_t DueBy(std::vector<RequestPacer>& pacers, int64_t t_ns) {
  uint64_t n = 0;
  RequestPacer::Due due;
  for (RequestPacer& p : pacers) {
    while (p.Take(t_ns, &due)) ++n;
  }
  return n;
}

std::vector<RequestPacer> Pacers(double rate, double ramp, uint32_t workers,
                                 std::optional<uint64_t> limit = std::nullopt) {
  std::vector<RequestPacer> pacers;
  for (uint32_t w = 0; w < workers; ++w) {
    pacers.emplace_back(ArrivalSchedule(rate, ramp), w, workers, limit, kSecond);
  }
  return pacers;
}

TEST(RequestPacerTest, ARateBelowTheWorkerCountIsExact) {
  std::vector<RequestPacer> pacers = Pacers(3, 0, 8);
  // Due at 0, 1/3, 2/3, … s, each by one of the 8 workers.
  EXPECT_EQ(DueBy(pacers, kSecond + kSecond * 29 / 10), 9u);
  EXPECT_EQ(DueBy(pacers, kSecond + kSecond * 3), 1u);
}

TEST(RequestPacerTest, NoDriftOverTenMinutes) {
  std::vector<RequestPacer> pacers = Pacers(1234.5, 0, 3);
  uint64_t total = 0;
  for (int t = 1; t <= 600; ++t) {
    total += DueBy(pacers, kSecond + t * kSecond);
    EXPECT_NEAR(static_cast<double>(total), 1234.5 * t, 1.0) << t;
  }
}

TEST(RequestPacerTest, TheRampRisesLinearlyToTheRate) {
  std::vector<RequestPacer> pacers = Pacers(1000, 10, 2);
  EXPECT_NEAR(static_cast<double>(DueBy(pacers, kSecond + 5 * kSecond)), 1000 * 25 / 20.0, 1);
  EXPECT_NEAR(static_cast<double>(DueBy(pacers, kSecond + 10 * kSecond)), 5000 - 1250, 1);
  EXPECT_NEAR(static_cast<double>(DueBy(pacers, kSecond + 11 * kSecond)), 1000, 1);
}

TEST(RequestPacerTest, EveryIndexOnceAcrossWorkersUpToTheLimit) {
  std::vector<RequestPacer> pacers = Pacers(100, 0, 3, 10);
  std::vector<int> seen(10);
  RequestPacer::Due due;
  for (RequestPacer& p : pacers) {
    while (p.Take(100 * kSecond, &due)) ++seen.at(due.index);
    EXPECT_TRUE(p.exhausted());
    EXPECT_EQ(p.next_due_ns(), RequestPacer::kNever);
  }
  EXPECT_EQ(seen, std::vector<int>(10, 1));
}

// DueBy inverts OffsetNs exactly, on and off the ramp: k requests are due at k's own offset,
// k - 1 a nanosecond before it.
TEST(RequestPacerTest, TheScheduleCountsWhatIsDueByAMoment) {
  for (auto [rate, ramp] : {std::pair{1000.0, 0.0}, {7.3, 2.5}, {250000.0, 1.0}}) {
    ArrivalSchedule schedule(rate, ramp);
    EXPECT_EQ(schedule.DueBy(-1), 0u);
    for (uint64_t k : {0ull, 1ull, 2ull, 17ull, 999ull, 123456ull}) {
      EXPECT_EQ(schedule.DueBy(schedule.OffsetNs(k)), k + 1) << rate << " " << k;
      if (k > 0 && schedule.OffsetNs(k - 1) < schedule.OffsetNs(k)) {
        EXPECT_EQ(schedule.DueBy(schedule.OffsetNs(k) - 1), k) << rate << " " << k;
      }
    }
  }
}

// What a worker left behind: its own due requests not taken, within -n, none once taken.
TEST(RequestPacerTest, TheBacklogIsThisWorkersDueRequestsNotTaken) {
  std::vector<RequestPacer> pacers = Pacers(1000, 0, 3, 100);  // Due every ms from 1 s.
  int64_t at = kSecond + 29 * kSecond / 1000;                  // Indexes 0..29 due.
  EXPECT_EQ(pacers[0].Backlog(at), 10u);                       // 0, 3, …, 27.
  EXPECT_EQ(pacers[2].Backlog(at), 10u);                       // 2, 5, …, 29.
  RequestPacer::Due due;
  ASSERT_TRUE(pacers[0].Take(at, &due));
  EXPECT_EQ(pacers[0].Backlog(at), 9u);
  EXPECT_EQ(pacers[1].Backlog(kSecond - 1), 0u);                   // Nothing due yet.
  EXPECT_EQ(pacers[1].Backlog(100 * kSecond), 33u);                // 1, 4, …, 97: -n caps it.
  EXPECT_EQ(RequestPacer(nullptr, 1).Backlog(100 * kSecond), 0u);  // Closed model: none.
}

}  // namespace
}  // namespace uringload::core
