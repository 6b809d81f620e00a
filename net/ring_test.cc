#include "net/ring.h"

#include <gtest/gtest.h>

namespace uringload::net {
namespace {

TEST(RingTest, RunsNopsPastTheSubmissionQueueSize) {
  absl::StatusOr<std::unique_ptr<Ring>> ring =
      Ring::Create({.sq_entries = 8, .cq_entries = 64, .direct_descriptors = 16});
  ASSERT_TRUE(ring.ok()) << ring.status();
  for (uint64_t i = 0; i < 20; ++i) {  // More than the SQ holds: GetSqe must flush.
    io_uring_sqe* sqe = (*ring)->GetSqe();
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, i);
  }
  uint64_t seen = 0;
  uint64_t sum = 0;
  while (seen < 20) {
    ASSERT_EQ((*ring)->SubmitAndWait(1'000'000'000), 0);
    seen += (*ring)->DrainCompletions([&](const io_uring_cqe& cqe) { sum += cqe.user_data; });
  }
  EXPECT_EQ(sum, 190u);
  EXPECT_EQ((*ring)->direct_descriptors(), 16u);
}

TEST(RingTest, WaitTimesOut) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ((*ring)->SubmitAndWait(1'000'000), -ETIME);
}

TEST(RingTest, OversizedDescriptorTableFailsClearly) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({.direct_descriptors = 1u << 30});
  ASSERT_FALSE(ring.ok());
  EXPECT_NE(ring.status().message().find("RLIMIT_NOFILE"), std::string::npos);
}

}  // namespace
}  // namespace uringload::net
