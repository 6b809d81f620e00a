#include "proto/grpc_status.h"

#include <gtest/gtest.h>

#include <string>

namespace uringload::proto {
namespace {

TEST(GrpcStatusTest, NamesAndNumbersMatchGrpcsTable) {
  EXPECT_EQ(GrpcStatusName(0), "OK");
  EXPECT_EQ(GrpcStatusName(4), "DEADLINE_EXCEEDED");
  EXPECT_EQ(GrpcStatusName(14), "UNAVAILABLE");
  EXPECT_EQ(GrpcStatusName(16), "UNAUTHENTICATED");
  EXPECT_EQ(GrpcStatusName(17), "");
  EXPECT_EQ(GrpcStatusName(-1), "");
  for (int code = 0; code < kGrpcStatusCount; ++code) {
    EXPECT_EQ(GrpcStatusByName(GrpcStatusName(code)), code);
  }
  EXPECT_EQ(GrpcStatusByName("unavailable"), std::nullopt);
}

TEST(GrpcStatusTest, OnlyTheDigitsOfACodeParse) {
  EXPECT_EQ(ParseGrpcStatus("0"), 0);
  EXPECT_EQ(ParseGrpcStatus("14"), 14);
  EXPECT_EQ(ParseGrpcStatus("16"), 16);
  for (std::string_view bad : {"", "17", "99", "07", "-1", " 0", "1a", "100"}) {
    EXPECT_EQ(ParseGrpcStatus(bad), std::nullopt) << bad;
  }
}

std::string Timeout(absl::Duration d) {
  char out[10];
  size_t size = 0;
  FormatGrpcTimeout(d, out, &size);
  return std::string(out, size);
}

TEST(GrpcStatusTest, TimeoutsTakeTheFinestUnitOfEightDigitsAndRoundUp) {
  EXPECT_EQ(Timeout(absl::ZeroDuration()), "0n");
  EXPECT_EQ(Timeout(absl::Nanoseconds(1)), "1n");
  EXPECT_EQ(Timeout(absl::Nanoseconds(99'999'999)), "99999999n");
  EXPECT_EQ(Timeout(absl::Milliseconds(250)), "250000u");  // 250,000,000 ns has nine digits.
  EXPECT_EQ(Timeout(absl::Seconds(100)), "100000m");
  EXPECT_EQ(Timeout(absl::Seconds(100'000)), "100000S");
  EXPECT_EQ(Timeout(absl::Nanoseconds(100'000'001)), "100001u");  // Rounded up, never down.
  EXPECT_EQ(Timeout(absl::InfiniteDuration()), "99999999H");
  EXPECT_EQ(Timeout(-absl::Seconds(1)), "0n");
}

}  // namespace
}  // namespace uringload::proto
