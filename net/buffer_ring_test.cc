#include "net/buffer_ring.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "net/ring.h"

namespace uringload::net {
namespace {

TEST(ProvidedBufferRingTest, RejectsBadSizes) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  EXPECT_FALSE(ProvidedBufferRing::Create((*ring)->raw(), 0, {.count = 3, .size = 64}).ok());
  EXPECT_FALSE(ProvidedBufferRing::Create((*ring)->raw(), 0, {.count = 65536, .size = 64}).ok());
  EXPECT_FALSE(ProvidedBufferRing::Create((*ring)->raw(), 0, {.count = 4, .size = 0}).ok());
}

// Incremental buffers hold the classic ones' bytes (at least 1 MiB) in 32 KiB buffers.
TEST(ProvidedBufferRingTest, LayoutsFollowTheConnections) {
  struct Case {
    uint32_t connections, classic_count, incremental_count;
  };
  for (const Case& k : {Case{1, 64, 32}, Case{100, 64, 32}, Case{1000, 256, 32},
                        Case{50000, 16384, 512}, Case{1'000'000, 32768, 1024}}) {
    ReceiveBufferLayout classic = ClassicReceiveBuffers(k.connections);
    ReceiveBufferLayout incremental = IncrementalReceiveBuffers(k.connections);
    EXPECT_EQ(classic.count, k.classic_count) << k.connections;
    EXPECT_EQ(classic.size, 1024u);
    EXPECT_FALSE(classic.incremental);
    EXPECT_EQ(incremental.count, k.incremental_count) << k.connections;
    EXPECT_EQ(incremental.size, 32768u);
    EXPECT_TRUE(incremental.incremental);
  }
}

// A multishot recv takes buffers from the ring; when it runs dry the recv ends with ENOBUFS
// and the data waits in the socket until buffers come back and the recv is armed again.
TEST(ProvidedBufferRingTest, MultishotRecvRunsDryAndRecovers) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> buffers =
      ProvidedBufferRing::Create((*ring)->raw(), 7, {.count = 2, .size = 4});
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ASSERT_EQ(write(fds[1], "abcdefghijkl", 12), 12);

  std::string received;
  bool ended_dry = false;
  auto arm = [&] {
    io_uring_sqe* sqe = (*ring)->GetSqe();
    io_uring_prep_recv_multishot(sqe, fds[0], nullptr, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = 7;
  };
  arm();
  for (int round = 0; round < 10 && received.size() < 12; ++round) {
    ASSERT_EQ((*ring)->SubmitAndWait(1'000'000'000), 0);
    bool rearm = false;
    (*ring)->DrainCompletions([&](const io_uring_cqe& cqe) {
      if (cqe.res > 0) {
        uint16_t id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
        ProvidedBufferRing::Received r = (*buffers)->Take(id, cqe.res, cqe.flags);
        EXPECT_TRUE(r.done);  // Classic: a receive takes a whole buffer.
        received.append(r.data);
        (*buffers)->Return(id);
      }
      if (cqe.res == -ENOBUFS) ended_dry = true;
      if (!(cqe.flags & IORING_CQE_F_MORE)) rearm = true;
    });
    (*buffers)->Publish();
    if (rearm) arm();
  }
  EXPECT_EQ(received, "abcdefghijkl");
  EXPECT_TRUE(ended_dry);
  close(fds[0]);
  close(fds[1]);
}

// Incremental (Linux 6.12): receives fill a buffer one after another, each where the last one
// ended; the kernel says when it is done with a buffer, which then goes back to the ring.
TEST(ProvidedBufferRingTest, IncrementalReceivesShareABufferUntilItIsFull) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> buffers =
      ProvidedBufferRing::Create((*ring)->raw(), 7, {.count = 2, .size = 8, .incremental = true});
  ASSERT_TRUE(buffers.ok()) << buffers.status();  // This machine's kernel (6.18) has them.
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  io_uring_sqe* sqe = (*ring)->GetSqe();
  io_uring_prep_recv_multishot(sqe, fds[0], nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = 7;

  struct Seen {
    uint16_t id;
    std::string data;
    const char* at;
    bool done;
  };
  std::vector<Seen> seen;
  auto round = [&] {
    ASSERT_EQ((*ring)->SubmitAndWait(1'000'000'000), 0);
    (*ring)->DrainCompletions([&](const io_uring_cqe& cqe) {
      ASSERT_GT(cqe.res, 0);
      auto id = static_cast<uint16_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
      ProvidedBufferRing::Received r = (*buffers)->Take(id, cqe.res, cqe.flags);
      seen.push_back({id, std::string(r.data), r.data.data(), r.done});
      if (r.done) (*buffers)->Return(id);
    });
    (*buffers)->Publish();
  };
  ASSERT_EQ(write(fds[1], "abc", 3), 3);
  round();
  ASSERT_EQ(write(fds[1], "defghijk", 8), 8);
  round();
  ASSERT_EQ(write(fds[1], "lmnopqrstu", 10), 10);
  round();
  std::string all;
  for (const Seen& s : seen) all += s.data;
  EXPECT_EQ(all, "abcdefghijklmnopqrstu");
  // "abc" and "defgh" share the first buffer, back to back; "defgh" fills it.
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[0].data, "abc");
  EXPECT_FALSE(seen[0].done);
  EXPECT_EQ(seen[1].id, seen[0].id);
  EXPECT_EQ(seen[1].data, "defgh");
  EXPECT_EQ(seen[1].at, seen[0].at + 3);
  EXPECT_TRUE(seen[1].done);
  EXPECT_NE(seen[2].id, seen[0].id);
  EXPECT_EQ(seen[2].data.substr(0, 3), "ijk");
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace uringload::net
