// RingEventLoop over a real loopback connection: a response much larger than the buffer ring
// arrives whole and in order through incremental buffers (this kernel, 6.18) and through
// classic ones (what a kernel before 6.12 gets), across ENOBUFS and re-arms.
#include "net/ring_event_loop.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "net/address.h"
#include "net/clock.h"

namespace uringload::net {
namespace {

class Recorder : public CompletionHandler {
 public:
  void OnCompletion(const Completion& c) override {
    if (c.op == Op::kConnect) connect_res = c.res;
    if (c.op == Op::kRecv && c.res > 0) received.append(c.data);
    if (c.op == Op::kRecv && c.res > 0) with_more_to_read += c.more_to_read;
    if (c.op == Op::kRecv && c.res <= 0) closed = true;
  }
  int connect_res = 1;
  std::string received;
  int with_more_to_read = 0;  // Receives that left bytes in the socket.
  bool closed = false;
};

// A listening socket on 127.0.0.1 with a port the kernel chose.
int Listen(uint16_t* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 4) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

void ReceiveLargeResponse(bool incremental) {
  RingEventLoopOptions options{.slots = 2,
                               .sq_entries = 64,
                               .cq_entries = 1024,
                               .receive_connections = 4,
                               .incremental_buffers = incremental};
  absl::StatusOr<std::unique_ptr<RingEventLoop>> loop = RingEventLoop::Create(options);
  ASSERT_TRUE(loop.ok()) << loop.status();
  // This kernel has incremental buffers: the test fails if the loop quietly fell back.
  EXPECT_EQ((*loop)->receive_buffers().incremental, incremental);
  uint64_t ring_bytes =
      uint64_t{(*loop)->receive_buffers().count} * (*loop)->receive_buffers().size;

  uint16_t port = 0;
  int listener = Listen(&port);
  ASSERT_GE(listener, 0);
  absl::StatusOr<SocketAddress> target = Resolve("127.0.0.1", port);
  ASSERT_TRUE(target.ok());
  Recorder recorder;
  (*loop)->Connect(0, *target, nullptr);
  for (int i = 0; i < 100 && recorder.connect_res == 1; ++i) {
    ASSERT_TRUE((*loop)->SubmitAndWait(10'000'000, 1).ok());
    (*loop)->Drain(recorder);
  }
  ASSERT_EQ(recorder.connect_res, 0);
  int peer = accept(listener, nullptr, nullptr);
  ASSERT_GE(peer, 0);

  // Three times the ring's bytes, in a pattern that shows any byte out of place.
  std::string response(3 * ring_bytes + 12345, '\0');
  for (size_t i = 0; i < response.size(); ++i) response[i] = static_cast<char>('a' + i % 23);
  std::thread writer([&] {
    size_t at = 0;
    while (at < response.size()) {
      ssize_t n = write(peer, response.data() + at, response.size() - at);
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    shutdown(peer, SHUT_WR);
  });
  (*loop)->Receive(0);
  int64_t give_up = MonotonicNanos() + 10'000'000'000;
  while (!recorder.closed && MonotonicNanos() < give_up) {
    ASSERT_TRUE((*loop)->SubmitAndWait(10'000'000, 1).ok());
    (*loop)->Drain(recorder);
  }
  writer.join();
  EXPECT_TRUE(recorder.closed);
  ASSERT_EQ(recorder.received.size(), response.size());
  EXPECT_TRUE(recorder.received == response);
  // The kernel says when a receive left bytes behind (IORING_CQE_F_SOCK_NONEMPTY): here,
  // whenever the ring ran dry or a buffer was full with more in the socket.
  EXPECT_GT(recorder.with_more_to_read, 0);
  close(peer);
  close(listener);
}

TEST(RingEventLoopTest, ALargeResponseArrivesWholeThroughIncrementalBuffers) {
  ReceiveLargeResponse(true);
}

TEST(RingEventLoopTest, ALargeResponseArrivesWholeThroughClassicBuffers) {
  ReceiveLargeResponse(false);
}

}  // namespace
}  // namespace uringload::net
