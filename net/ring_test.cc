#include "net/ring.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

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

// A ring with a multishot receive armed on one end of a socket pair (into 4 buffers of 64
// bytes, group 3), nothing received yet; the test writes to `peer`.
struct ArmedReceive {
  explicit ArmedReceive(RingOptions options) {
    absl::StatusOr<std::unique_ptr<Ring>> made = Ring::Create(options);
    EXPECT_TRUE(made.ok()) << made.status();
    if (!made.ok()) return;
    ring = *std::move(made);
    absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> group =
        ProvidedBufferRing::Create(ring->raw(), 3, {.count = 4, .size = 64});
    EXPECT_TRUE(group.ok()) << group.status();
    if (!group.ok()) return;
    buffers = *std::move(group);
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    own = fds[0];
    peer = fds[1];
    io_uring_sqe* sqe = ring->GetSqe();
    io_uring_prep_recv_multishot(sqe, own, nullptr, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = 3;
  }
  ~ArmedReceive() {
    close(own);
    close(peer);
  }
  bool ok() const { return buffers != nullptr && own >= 0; }
  // Hands each receive's bytes to `fn(std::string_view)`; returns how many receives.
  template <typename Fn>
  unsigned Drain(Fn&& fn) {
    return ring->DrainCompletions([&](const io_uring_cqe& cqe) {
      EXPECT_GT(cqe.res, 0);
      if (cqe.res > 0) fn(buffers->Take(cqe.flags >> IORING_CQE_BUFFER_SHIFT, cqe.res, 0).data);
    });
  }

  std::unique_ptr<Ring> ring;
  std::unique_ptr<ProvidedBufferRing> buffers;
  int own = -1;
  int peer = -1;
};

// SubmitAndSleep: data that arrives while the worker sleeps waits unread (DEFER_TASKRUN runs
// receives only when asked), and after the sleep one receive takes all of it.
TEST(RingTest, SubmitAndSleepReadsWhatGatheredOnceAfterTheSleep) {
  ArmedReceive armed({});
  ASSERT_TRUE(armed.ok());
  ASSERT_EQ(armed.ring->SubmitAndSleep(0), 0);  // Armed: nothing to read yet.
  std::string received;
  auto append = [&](std::string_view data) { received.append(data); };
  EXPECT_EQ(armed.Drain(append), 0u);
  for (const char* part : {"one ", "two ", "three"}) {
    ASSERT_EQ(write(armed.peer, part, strlen(part)), static_cast<ssize_t>(strlen(part)));
  }
  EXPECT_EQ(armed.Drain(append), 0u);  // Arrived, not read: nobody asked for events.
  int64_t before = MonotonicNanos();
  ASSERT_EQ(armed.ring->SubmitAndSleep(2'000'000), 0);
  EXPECT_GE(MonotonicNanos() - before, 2'000'000);
  EXPECT_EQ(armed.Drain(append), 1u);
  EXPECT_EQ(received, "one two three");
}

// The flags word says when a response waits unread for the ring's thread, so another thread
// can see it (the generator's unread check); only a ring asked for it keeps the flag.
TEST(RingTest, TheFlagsWordSaysWhileReceivedDataWaitsUnread) {
  for (bool flag : {true, false}) {
    ArmedReceive armed({.flag_waiting_work = flag});
    ASSERT_TRUE(armed.ok());
    ASSERT_EQ(armed.ring->SubmitAndWait(0), 0);  // Armed: nothing to read yet.
    const unsigned* word = armed.ring->flags_word();
    EXPECT_FALSE(Ring::WorkWaiting(word));
    ASSERT_EQ(write(armed.peer, "response", 8), 8);
    EXPECT_EQ(Ring::WorkWaiting(word), flag) << "flag_waiting_work " << flag;
    ASSERT_EQ(armed.ring->SubmitAndWait(0), 0);  // Runs the receive.
    EXPECT_FALSE(Ring::WorkWaiting(word));
    std::string received;
    EXPECT_EQ(armed.Drain([&](std::string_view data) { received.append(data); }), 1u);
    EXPECT_EQ(received, "response");
  }
}

TEST(RingTest, OversizedDescriptorTableFailsClearly) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({.direct_descriptors = 1u << 30});
  ASSERT_FALSE(ring.ok());
  EXPECT_NE(ring.status().message().find("RLIMIT_NOFILE"), std::string::npos);
}

}  // namespace
}  // namespace uringload::net
