#include "net/buffer_ring.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "net/ring.h"

namespace uringload::net {
namespace {

TEST(ProvidedBufferRingTest, RejectsBadSizes) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  EXPECT_FALSE(ProvidedBufferRing::Create((*ring)->raw(), 0, 3, 64).ok());
  EXPECT_FALSE(ProvidedBufferRing::Create((*ring)->raw(), 0, 65536, 64).ok());
}

// A multishot recv takes buffers from the ring; when it runs dry the recv ends with ENOBUFS
// and the data waits in the socket until buffers come back and the recv is armed again.
TEST(ProvidedBufferRingTest, MultishotRecvRunsDryAndRecovers) {
  absl::StatusOr<std::unique_ptr<Ring>> ring = Ring::Create({});
  ASSERT_TRUE(ring.ok());
  absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> buffers =
      ProvidedBufferRing::Create((*ring)->raw(), 7, 2, 4);
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
        received.append((*buffers)->Data(id, cqe.res));
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

}  // namespace
}  // namespace uringload::net
