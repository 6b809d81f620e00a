#include "net/ring.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "net/buffer_ring.h"
#include "net/clock.h"

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

// The hand-laid socket command (TCP_NODELAY) works wherever the kernel has socket commands
// (Linux 6.7): a wrong layout would fail here, not only make HTTP/2 slow.
TEST(RingTest, SetsTcpNoDelayOnKernelsWithSocketCommands) {
  utsname name{};
  ASSERT_EQ(uname(&name), 0);
  int major = 0;
  int minor = 0;
  ASSERT_EQ(sscanf(name.release, "%d.%d", &major, &minor), 2);
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  if (major < 6 || (major == 6 && minor < 7)) {
    EXPECT_FALSE((*ring)->CanSetSocketOptions());
    GTEST_SKIP() << "Linux " << name.release << " has no socket commands";
  }
  EXPECT_TRUE((*ring)->CanSetSocketOptions());
}

TEST(RingTest, WaitTimesOut) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ((*ring)->SubmitAndWait(1'000'000), -ETIME);
}

// SubmitAndSleep: data that arrives while the worker sleeps waits unread (DEFER_TASKRUN runs
// receives only when asked), and after the sleep one receive takes all of it.
TEST(RingTest, SubmitAndSleepReadsWhatGatheredOnceAfterTheSleep) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> buffers =
      ProvidedBufferRing::Create((*ring)->raw(), 3, {.count = 4, .size = 64});
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  io_uring_sqe* sqe = (*ring)->GetSqe();
  io_uring_prep_recv_multishot(sqe, fds[0], nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = 3;
  ASSERT_EQ((*ring)->SubmitAndSleep(0), 0);  // Armed: nothing to read yet.
  std::string received;
  int receives = 0;
  auto drain = [&] {
    return (*ring)->DrainCompletions([&](const io_uring_cqe& cqe) {
      ASSERT_GT(cqe.res, 0);
      ++receives;
      received.append((*buffers)->Take(cqe.flags >> IORING_CQE_BUFFER_SHIFT, cqe.res, 0).data);
    });
  };
  EXPECT_EQ(drain(), 0u);
  for (const char* part : {"one ", "two ", "three"}) {
    ASSERT_EQ(write(fds[1], part, strlen(part)), static_cast<ssize_t>(strlen(part)));
  }
  EXPECT_EQ(drain(), 0u);  // Arrived, not read: nobody asked for events.
  int64_t before = MonotonicNanos();
  ASSERT_EQ((*ring)->SubmitAndSleep(2'000'000), 0);
  EXPECT_GE(MonotonicNanos() - before, 2'000'000);
  drain();
  EXPECT_EQ(received, "one two three");
  EXPECT_EQ(receives, 1);
  close(fds[0]);
  close(fds[1]);
}

// The flags word says when a response waits unread for the ring's thread, so another thread
// can see it (the generator's unread check); only a ring asked for it keeps the flag.
TEST(RingTest, TheFlagsWordSaysWhileReceivedDataWaitsUnread) {
  for (bool flag : {true, false}) {
    absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({.flag_waiting_work = flag});
    ASSERT_TRUE(ring.ok());
    absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> buffers =
        ProvidedBufferRing::Create((*ring)->raw(), 3, {.count = 4, .size = 64});
    ASSERT_TRUE(buffers.ok()) << buffers.status();
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    io_uring_sqe* sqe = (*ring)->GetSqe();
    io_uring_prep_recv_multishot(sqe, fds[0], nullptr, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = 3;
    ASSERT_EQ((*ring)->SubmitAndWait(0), 0);  // Armed: nothing to read yet.
    const unsigned* word = (*ring)->flags_word();
    EXPECT_FALSE(Ring::WorkWaiting(word));
    ASSERT_EQ(write(fds[1], "response", 8), 8);
    EXPECT_EQ(Ring::WorkWaiting(word), flag) << "flag_waiting_work " << flag;
    ASSERT_EQ((*ring)->SubmitAndWait(0), 0);  // Runs the receive.
    EXPECT_FALSE(Ring::WorkWaiting(word));
    unsigned received = (*ring)->DrainCompletions([&](const io_uring_cqe& cqe) {
      EXPECT_EQ(cqe.res, 8);
      (*buffers)->Take(cqe.flags >> IORING_CQE_BUFFER_SHIFT, cqe.res, 0);
    });
    EXPECT_EQ(received, 1u);
    close(fds[0]);
    close(fds[1]);
  }
}

TEST(RingTest, OversizedDescriptorTableFailsClearly) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({.direct_descriptors = 1u << 30});
  ASSERT_FALSE(ring.ok());
  EXPECT_NE(ring.status().message().find("RLIMIT_NOFILE"), std::string::npos);
}

}  // namespace
}  // namespace uringload::net
