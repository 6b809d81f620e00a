#include <gtest/gtest.h>

#include "core/run/engine.h"

namespace uringload::core {
namespace {

TEST(OkSeriesTest, CountsEachSecondsOkResponses) {
  OkSeries series;
  EXPECT_EQ(series.next_end_seconds(), 1.0);
  for (uint64_t total : {10u, 25u, 25u, 40u}) series.Add(total);
  RunResult result;
  series.MoveInto(&result);
  EXPECT_EQ(result.ok_per_interval, (std::vector<uint64_t>{10, 15, 0, 15}));
  EXPECT_EQ(result.interval_seconds, 1.0);
}

// A run that ended just before a tick came still has each of its whole seconds: the ones no
// tick recorded get the responses not yet counted, in the first of them.
TEST(OkSeriesTest, TheEndAddsTheWholeSecondsNoTickRecorded) {
  OkSeries series;
  series.Add(500);
  series.Finish(absl::Milliseconds(2010), 1000);  // The tick at 2 s came after the end.
  series.Finish(absl::Milliseconds(2010), 1000);  // Nothing twice.
  RunResult result;
  series.MoveInto(&result);
  EXPECT_EQ(result.ok_per_interval, (std::vector<uint64_t>{500, 500}));

  OkSeries late;
  late.Finish(absl::Milliseconds(3999), 900);
  RunResult three;
  late.MoveInto(&three);
  EXPECT_EQ(three.ok_per_interval, (std::vector<uint64_t>{900, 0, 0}));  // Not the partial 4th.
}

// Past kMaxIntervals the intervals double: the counts still add up to the total, and a
// second that does not fill a whole interval is left for the next.
TEST(OkSeriesTest, StaysBoundedByDoublingTheInterval) {
  OkSeries series;
  uint64_t total = 0;
  for (size_t s = 0; s < OkSeries::kMaxIntervals + 1401; ++s) series.Add(total += 7);
  RunResult result;
  series.MoveInto(&result);
  EXPECT_LE(result.ok_per_interval.size(), OkSeries::kMaxIntervals);
  EXPECT_EQ(result.interval_seconds, 2.0);
  uint64_t sum = 0;
  for (uint64_t c : result.ok_per_interval) {
    EXPECT_EQ(c, 14u);
    sum += c;
  }
  EXPECT_EQ(result.ok_per_interval.size(), 2500u);  // 1,800 of the first hour, 700 since.
  EXPECT_EQ(sum, total - 7);                        // The last second waits for its pair.
}

}  // namespace
}  // namespace uringload::core
