#include "core/run/unread_meter.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

constexpr int64_t kOneMs = 1'000'000;

// Samples every 10 ms; work waits from 10 to 60 ms with no drain: a 50 ms stretch (from its
// first sample to its last), counted because it passed the 20 ms threshold.
TEST(UnreadMeterTest, AStretchWithoutADrainCountsFromItsFirstSampleToItsLast) {
  UnreadMeter meter(20 * kOneMs);
  meter.Observe(0, false, 5);
  for (int64_t t = 10; t <= 60; t += 10) meter.Observe(t * kOneMs, true, 6);
  EXPECT_EQ(meter.unread_ns(), 50u * kOneMs);  // Open, counted to its last sample.
  meter.Observe(70 * kOneMs, false, 7);
  EXPECT_EQ(meter.unread_ns(), 50u * kOneMs);
  EXPECT_EQ(meter.longest_ns(), 50u * kOneMs);
}

// A worker that drains between samples is there: work found waiting at every sample is new
// work each time (the drain count moved), never one long wait.
TEST(UnreadMeterTest, WorkWaitingAtEverySampleOfAWorkerThatDrainsIsNotUnread) {
  UnreadMeter meter(20 * kOneMs);
  for (int64_t i = 0; i < 100; ++i) meter.Observe(i * 10 * kOneMs, true, i);
  EXPECT_EQ(meter.unread_ns(), 0u);
}

// Stretches up to the threshold are a worker's normal way back (a batch window, a loop):
// not counted; longer ones add up, the longest kept.
TEST(UnreadMeterTest, OnlyStretchesOverTheThresholdAddUp) {
  UnreadMeter meter(20 * kOneMs);
  auto stretch = [&](int64_t from_ms, int64_t length_ms, uint64_t drains) {
    for (int64_t t = from_ms; t <= from_ms + length_ms; t += 10)
      meter.Observe(t * kOneMs, true, drains);
    meter.Observe((from_ms + length_ms + 5) * kOneMs, false, drains + 1);
  };
  stretch(0, 20, 1);    // Exactly the threshold.
  stretch(100, 30, 3);  // Over.
  stretch(200, 10, 5);
  stretch(300, 80, 7);
  EXPECT_EQ(meter.unread_ns(), 110u * kOneMs);
  EXPECT_EQ(meter.longest_ns(), 80u * kOneMs);
}

// A drain inside a stretch ends it and a new one starts at that sample.
TEST(UnreadMeterTest, ADrainEndsAStretch) {
  UnreadMeter meter(20 * kOneMs);
  for (int64_t t = 0; t <= 40; t += 10) meter.Observe(t * kOneMs, true, 1);
  for (int64_t t = 50; t <= 100; t += 10) meter.Observe(t * kOneMs, true, 2);
  EXPECT_EQ(meter.unread_ns(), 90u * kOneMs);  // 0-40 and 50-100.
  EXPECT_EQ(meter.longest_ns(), 50u * kOneMs);
}

// A stopped worker's open stretch is dropped: it may be the end of the run, not a wait.
TEST(UnreadMeterTest, StopDropsTheOpenStretch) {
  UnreadMeter meter(20 * kOneMs);
  for (int64_t t = 0; t <= 100; t += 10) meter.Observe(t * kOneMs, true, 1);
  meter.Stop();
  EXPECT_EQ(meter.unread_ns(), 0u);
}

}  // namespace
}  // namespace uringload::core
