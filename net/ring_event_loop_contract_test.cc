// Each contract of net/event_loop.h, checked against the real ring over loopback sockets:
// what a connect, send, receive, accept and close complete with, that Close cancels what is
// pending on a slot, and that a completion of a closed incarnation never reaches the handler
// when the slot is used again. (The fake loop in the core tests promises the same.)
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "net/address.h"
#include "net/clock.h"
#include "net/ring_event_loop.h"

namespace uringload::net {
namespace {

struct Seen {
  uint32_t slot;
  Op op;
  int res;
  bool more;
};

class Log : public CompletionHandler {
 public:
  void OnCompletion(const Completion& c) override {
    seen.push_back({c.slot, c.op, c.res, c.more});
    if (c.op == Op::kRecv && c.res > 0) data[c.slot].append(c.data);
  }
  size_t Count(Op op, uint32_t slot) const {
    size_t n = 0;
    for (const Seen& s : seen) n += s.op == op && s.slot == slot;
    return n;
  }
  const Seen* Last(Op op, uint32_t slot) const {
    for (auto it = seen.rbegin(); it != seen.rend(); ++it) {
      if (it->op == op && it->slot == slot) return &*it;
    }
    return nullptr;
  }
  std::vector<Seen> seen;
  std::string data[4];
};

// A plain listening socket on 127.0.0.1 with a port the kernel chose.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(addr);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 && listen(fd_, 8) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
      port_ = ntohs(addr.sin_port);
    }
  }
  ~Listener() { close(fd_); }
  int fd() const { return fd_; }
  uint16_t port() const { return port_; }
  SocketAddress address() const { return *Resolve("127.0.0.1", port_); }
  int Accept() const { return accept(fd_, nullptr, nullptr); }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

std::unique_ptr<RingEventLoop> MakeLoop(bool accept_into_free_slots = false) {
  absl::StatusOr<std::unique_ptr<RingEventLoop>> loop =
      RingEventLoop::Create({.slots = 4,
                             .sq_entries = 64,
                             .cq_entries = 1024,
                             .receive_connections = 4,
                             .accept_into_free_slots = accept_into_free_slots});
  EXPECT_TRUE(loop.ok()) << loop.status();
  return loop.ok() ? *std::move(loop) : nullptr;
}

// Waits and drains until `done` holds (at most 5 s).
bool RunUntil(RingEventLoop& loop, Log& log, const std::function<bool()>& done) {
  int64_t give_up = MonotonicNanos() + 5'000'000'000;
  while (!done() && MonotonicNanos() < give_up) {
    if (!loop.SubmitAndWait(10'000'000, 1).ok()) return false;
    loop.Drain(log);
  }
  return done();
}

// Settles what is in flight: a few short waits, so late completions have time to arrive.
void Settle(RingEventLoop& loop, Log& log) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(loop.SubmitAndWait(2'000'000, 1).ok());
    loop.Drain(log);
  }
}

// Connects `slot` to the listener, accepts the peer and arms the receive; the peer's fd, or
// -1 when the connect failed.
int ConnectAndAccept(RingEventLoop& loop, Log& log, const Listener& listener, uint32_t slot) {
  size_t connects = log.Count(Op::kConnect, slot);
  SocketAddress target = listener.address();  // Must outlive the submit.
  loop.Connect(slot, target, nullptr);
  if (!RunUntil(loop, log, [&] { return log.Count(Op::kConnect, slot) > connects; }) ||
      log.Last(Op::kConnect, slot)->res != 0) {
    return -1;
  }
  int peer = listener.Accept();
  loop.Receive(slot);
  return peer;
}

TEST(EventLoopContractTest, AConnectToAClosedPortCompletesWithItsErrno) {
  std::unique_ptr<RingEventLoop> loop = MakeLoop();
  ASSERT_NE(loop, nullptr);
  SocketAddress closed_port = Listener().address();  // The listener is gone again.
  Log log;
  loop->Connect(0, closed_port, nullptr);  // The address must outlive the submit.
  ASSERT_TRUE(RunUntil(*loop, log, [&] { return log.Count(Op::kConnect, 0) == 1; }));
  EXPECT_EQ(log.Last(Op::kConnect, 0)->res, -ECONNREFUSED);
}

TEST(EventLoopContractTest, SendsAllBytesReceivesThemAndZeroWhenThePeerCloses) {
  std::unique_ptr<RingEventLoop> loop = MakeLoop();
  ASSERT_NE(loop, nullptr);
  Listener listener;
  Log log;
  int peer = ConnectAndAccept(*loop, log, listener, 1);
  ASSERT_GE(peer, 0);
  static const std::string kRequest(100'000, 'q');  // Must outlive the send.
  loop->Send(1, kRequest.data(), static_cast<uint32_t>(kRequest.size()));
  EXPECT_TRUE(loop->SendPending(1));
  std::string got;
  std::thread reader([&] {
    char buffer[65536];
    while (got.size() < kRequest.size()) {
      ssize_t n = read(peer, buffer, sizeof buffer);
      if (n <= 0) break;
      got.append(buffer, static_cast<size_t>(n));
    }
  });
  ASSERT_TRUE(RunUntil(*loop, log, [&] { return log.Count(Op::kSend, 1) == 1; }));
  reader.join();
  EXPECT_EQ(log.Last(Op::kSend, 1)->res, static_cast<int>(kRequest.size()));  // All of it.
  EXPECT_FALSE(loop->SendPending(1));
  EXPECT_EQ(got, kRequest);
  ASSERT_EQ(write(peer, "answer", 6), 6);
  close(peer);
  ASSERT_TRUE(RunUntil(*loop, log, [&] {
    const Seen* last = log.Last(Op::kRecv, 1);
    return last != nullptr && last->res == 0;
  }));
  EXPECT_EQ(log.data[1], "answer");
  for (const Seen& s : log.seen) {
    if (s.op == Op::kRecv) {
      EXPECT_NE(s.res, -ENOBUFS);  // The loop's business, never ours.
    }
  }
}

TEST(EventLoopContractTest, AResetIsAReceiveWithItsErrno) {
  std::unique_ptr<RingEventLoop> loop = MakeLoop();
  ASSERT_NE(loop, nullptr);
  Listener listener;
  Log log;
  int peer = ConnectAndAccept(*loop, log, listener, 0);
  ASSERT_GE(peer, 0);
  linger abort_on_close{.l_onoff = 1, .l_linger = 0};
  ASSERT_EQ(setsockopt(peer, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close), 0);
  close(peer);  // An RST, not a FIN.
  ASSERT_TRUE(RunUntil(*loop, log, [&] { return log.Count(Op::kRecv, 0) > 0; }));
  EXPECT_EQ(log.Last(Op::kRecv, 0)->res, -ECONNRESET);
}

// Close cancels what is pending on the slot and completes with kClose; the cancelled receive
// is of a closed incarnation, so its completion never reaches the handler, neither now nor
// after the slot holds a new connection that receives data of its own.
TEST(EventLoopContractTest, CloseCancelsAndTheOldIncarnationStaysSilent) {
  std::unique_ptr<RingEventLoop> loop = MakeLoop();
  ASSERT_NE(loop, nullptr);
  Listener listener;
  Log log;
  int first_peer = ConnectAndAccept(*loop, log, listener, 2);
  ASSERT_GE(first_peer, 0);
  Settle(*loop, log);
  loop->Close(2);
  ASSERT_TRUE(RunUntil(*loop, log, [&] { return log.Count(Op::kClose, 2) == 1; }));
  Settle(*loop, log);
  EXPECT_EQ(log.Count(Op::kRecv, 2), 0u) << "a cancelled receive reached the handler";
  // The peer sees the close: the connection is really gone.
  char byte;
  EXPECT_EQ(read(first_peer, &byte, 1), 0);

  int second_peer = ConnectAndAccept(*loop, log, listener, 2);
  ASSERT_GE(second_peer, 0);
  ASSERT_EQ(write(second_peer, "new", 3), 3);
  ASSERT_TRUE(RunUntil(*loop, log, [&] { return log.data[2].size() >= 3; }));
  Settle(*loop, log);
  EXPECT_EQ(log.data[2], "new");
  for (const Seen& s : log.seen) {
    if (s.op == Op::kRecv) {
      EXPECT_GT(s.res, 0) << "only the new connection's data";
    }
  }
  close(first_peer);
  close(second_peer);
}

// A connect still in flight is cancelled by Close too: the handler sees kClose, never kConnect.
TEST(EventLoopContractTest, CloseDuringAConnectEndsItSilently) {
  std::unique_ptr<RingEventLoop> loop = MakeLoop();
  ASSERT_NE(loop, nullptr);
  // Submitted together: whether the kernel connects before the cancel or not, that connect
  // belongs to a closed incarnation.
  Listener listener;
  Log log;
  SocketAddress target = listener.address();  // Must outlive the submit.
  loop->Connect(3, target, nullptr);
  loop->Close(3);
  ASSERT_TRUE(RunUntil(*loop, log, [&] { return log.Count(Op::kClose, 3) == 1; }));
  Settle(*loop, log);
  EXPECT_EQ(log.Count(Op::kConnect, 3), 0u);
}

// Multishot accept into free slots: each completion names the listener and the new slot, and
// says that the accept stays armed.
TEST(EventLoopContractTest, AcceptFillsFreeSlotsAndStaysArmed) {
  std::unique_ptr<RingEventLoop> loop = MakeLoop(/*accept_into_free_slots=*/true);
  ASSERT_NE(loop, nullptr);
  Listener listener;
  Log log;
  loop->Accept(/*listener=*/5, listener.fd());
  int clients[2];
  for (int& c : clients) {
    c = socket(AF_INET, SOCK_STREAM, 0);
    SocketAddress to = listener.address();
    ASSERT_EQ(connect(c, to.get(), to.length), 0);
  }
  ASSERT_TRUE(RunUntil(*loop, log, [&] { return log.Count(Op::kAccept, 5) == 2; }));
  std::vector<int> slots;
  for (const Seen& s : log.seen) {
    ASSERT_EQ(s.op, Op::kAccept);
    EXPECT_TRUE(s.more);
    slots.push_back(s.res);
  }
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_GE(slots[0], 0);
  EXPECT_GE(slots[1], 0);
  EXPECT_NE(slots[0], slots[1]);
  for (int c : clients) close(c);
}

}  // namespace
}  // namespace uringload::net
