// Each contract of net/event_loop.h, checked against both implementations: the real ring over
// loopback sockets, and the FakeEventLoop the core tests and simulations run on, whose peer
// here behaves as the kernel does (a cancelled operation still completes, for the closed
// incarnation). What a send and a receive complete with, a reset, that Close cancels what is
// pending on a slot, and that a completion of a closed incarnation never reaches the handler
// when the slot is used again: a fake that drifted from the ring would fail here. A connect to
// a closed port and multishot accept are the ring's alone (the fake has no kernel to ask).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "net/address.h"
#include "net/clock.h"
#include "net/ring_event_loop.h"
#include "net/testing/fake_event_loop.h"

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

// A loop and the world behind it: the real ring with a listener and the peers' sockets.
class RingWorld {
 public:
  static constexpr const char* kName = "ring";
  RingWorld() : loop_(MakeLoop()) {}
  bool ok() const { return loop_ != nullptr; }
  EventLoop& loop() { return *loop_; }
  // Connects `slot`, arms its receive, and keeps the peer's end; false when it failed.
  bool Connect(Log& log, uint32_t slot) {
    peers_[slot] = ConnectAndAccept(*loop_, log, listener_, slot);
    return peers_[slot] >= 0;
  }
  void StartConnect(uint32_t slot) { loop_->Connect(slot, target_, nullptr); }
  // The peer reads `size` bytes (in a thread: the send may need room in the socket).
  std::thread PeerReads(uint32_t slot, size_t size, std::string* got) {
    return std::thread([this, slot, size, got] {
      char buffer[65536];
      while (got->size() < size) {
        ssize_t n = read(peers_[slot], buffer, sizeof buffer);
        if (n <= 0) break;
        got->append(buffer, static_cast<size_t>(n));
      }
    });
  }
  void PeerWrites(uint32_t slot, const std::string& bytes) {
    ASSERT_EQ(write(peers_[slot], bytes.data(), bytes.size()), ssize_t(bytes.size()));
  }
  void PeerCloses(uint32_t slot) { close(std::exchange(peers_[slot], -1)); }
  void PeerResets(uint32_t slot) {
    linger abort_on_close{.l_onoff = 1, .l_linger = 0};
    ASSERT_EQ(
        setsockopt(peers_[slot], SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close), 0);
    PeerCloses(slot);  // An RST, not a FIN.
  }
  // The peer sees the connection gone (it reads end of file).
  bool PeerSeesClosed(uint32_t slot) {
    char byte;
    return read(peers_[slot], &byte, 1) == 0;
  }
  bool RunUntil(Log& log, const std::function<bool()>& done) {
    return net::RunUntil(*loop_, log, done);
  }
  void Settle(Log& log) { net::Settle(*loop_, log); }
  ~RingWorld() {
    for (int fd : peers_) {
      if (fd >= 0) close(fd);
    }
  }

 private:
  Listener listener_;
  SocketAddress target_ = listener_.address();  // Outlives the submits.
  std::unique_ptr<RingEventLoop> loop_;
  int peers_[4] = {-1, -1, -1, -1};
};

// The fake loop, with a peer scripted as the kernel behaves: connects complete at the next
// wait, sends complete whole, and Close cancels what was pending, whose completions (of the
// closed incarnation) still arrive, as the ring's cancelled operations do.
class FakeWorld {
 public:
  static constexpr const char* kName = "fake";
  FakeWorld() {
    loop_.on_submit = [this](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
      switch (s.op) {
        case Op::kConnect:
          connecting_[s.slot] = true;
          break;
        case Op::kSend:
          l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
          sent_[s.slot] += s.bytes;
          break;
        case Op::kRecv:
          receiving_[s.slot] = true;
          break;
        case Op::kClose:  // What was pending completes for the incarnation just closed.
          if (std::exchange(connecting_[s.slot], false)) {
            l.CompleteStale(s.slot, Op::kConnect, -ECANCELED);
          }
          if (std::exchange(receiving_[s.slot], false)) {
            l.CompleteStale(s.slot, Op::kRecv, -ECANCELED);
          }
          closed_[s.slot] = true;
          break;
        default:
          break;
      }
    };
    loop_.on_wait = [this](FakeEventLoop& l) {
      for (uint32_t slot = 0; slot < 4; ++slot) {
        if (std::exchange(connecting_[slot], false)) l.Complete(slot, Op::kConnect, 0);
      }
    };
  }
  bool ok() const { return true; }
  EventLoop& loop() { return loop_; }
  bool Connect(Log& log, uint32_t slot) {
    size_t connects = log.Count(Op::kConnect, slot);
    StartConnect(slot);
    if (!RunUntil(log, [&] { return log.Count(Op::kConnect, slot) > connects; }) ||
        log.Last(Op::kConnect, slot)->res != 0) {
      return false;
    }
    closed_[slot] = false;
    loop_.Receive(slot);
    return true;
  }
  void StartConnect(uint32_t slot) { loop_.Connect(slot, target_, nullptr); }
  std::thread PeerReads(uint32_t slot, size_t, std::string* got) {
    return std::thread([this, slot, got] { *got = sent_[slot]; });
  }
  void PeerWrites(uint32_t slot, const std::string& bytes) {
    loop_.Complete(slot, Op::kRecv, static_cast<int>(bytes.size()), bytes);
  }
  void PeerCloses(uint32_t slot) { loop_.Complete(slot, Op::kRecv, 0, {}, /*more=*/false); }
  void PeerResets(uint32_t slot) {
    loop_.Complete(slot, Op::kRecv, -ECONNRESET, {}, /*more=*/false);
  }
  bool PeerSeesClosed(uint32_t slot) { return closed_[slot]; }
  bool RunUntil(Log& log, const std::function<bool()>& done) {
    for (int i = 0; i < 100 && !done(); ++i) {
      if (!loop_.SubmitAndWait(1'000'000, 1).ok()) return false;
      loop_.Drain(log);
    }
    return done();
  }
  void Settle(Log& log) {
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(loop_.SubmitAndWait(1'000'000, 1).ok());
      loop_.Drain(log);
    }
  }

 private:
  FakeEventLoop loop_{4};
  SocketAddress target_ = *Resolve("127.0.0.1", 9);
  bool connecting_[4] = {};
  bool receiving_[4] = {};
  bool closed_[4] = {};
  std::string sent_[4];
};

template <typename World>
class EventLoopContract : public ::testing::Test {};
struct WorldName {
  template <typename World>
  static std::string GetName(int) {
    return World::kName;
  }
};
using Worlds = ::testing::Types<RingWorld, FakeWorld>;
TYPED_TEST_SUITE(EventLoopContract, Worlds, WorldName);

TYPED_TEST(EventLoopContract, SendsAllBytesReceivesThemAndZeroWhenThePeerCloses) {
  TypeParam world;
  ASSERT_TRUE(world.ok());
  Log log;
  ASSERT_TRUE(world.Connect(log, 1));
  static const std::string kRequest(100'000, 'q');  // Must outlive the send.
  world.loop().Send(1, kRequest.data(), static_cast<uint32_t>(kRequest.size()));
  EXPECT_TRUE(world.loop().SendPending(1));
  std::string got;
  std::thread reader = world.PeerReads(1, kRequest.size(), &got);
  ASSERT_TRUE(world.RunUntil(log, [&] { return log.Count(Op::kSend, 1) == 1; }));
  reader.join();
  EXPECT_EQ(log.Last(Op::kSend, 1)->res, static_cast<int>(kRequest.size()));  // All of it.
  EXPECT_FALSE(world.loop().SendPending(1));
  EXPECT_EQ(got, kRequest);
  world.PeerWrites(1, "answer");
  world.PeerCloses(1);
  ASSERT_TRUE(world.RunUntil(log, [&] {
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

TYPED_TEST(EventLoopContract, AResetIsAReceiveWithItsErrno) {
  TypeParam world;
  ASSERT_TRUE(world.ok());
  Log log;
  ASSERT_TRUE(world.Connect(log, 0));
  world.PeerResets(0);
  ASSERT_TRUE(world.RunUntil(log, [&] { return log.Count(Op::kRecv, 0) > 0; }));
  EXPECT_EQ(log.Last(Op::kRecv, 0)->res, -ECONNRESET);
}

// Close cancels what is pending on the slot and completes with kClose; the cancelled receive
// is of a closed incarnation, so its completion never reaches the handler, neither now nor
// after the slot holds a new connection that receives data of its own.
TYPED_TEST(EventLoopContract, CloseCancelsAndTheOldIncarnationStaysSilent) {
  TypeParam world;
  ASSERT_TRUE(world.ok());
  Log log;
  ASSERT_TRUE(world.Connect(log, 2));
  world.Settle(log);
  world.loop().Close(2);
  ASSERT_TRUE(world.RunUntil(log, [&] { return log.Count(Op::kClose, 2) == 1; }));
  world.Settle(log);
  EXPECT_EQ(log.Count(Op::kRecv, 2), 0u) << "a cancelled receive reached the handler";
  EXPECT_TRUE(world.PeerSeesClosed(2));  // The connection is really gone.

  ASSERT_TRUE(world.Connect(log, 2));
  world.PeerWrites(2, "new");
  ASSERT_TRUE(world.RunUntil(log, [&] { return log.data[2].size() >= 3; }));
  world.Settle(log);
  EXPECT_EQ(log.data[2], "new");
  for (const Seen& s : log.seen) {
    if (s.op == Op::kRecv) {
      EXPECT_GT(s.res, 0) << "only the new connection's data";
    }
  }
}

// A connect still in flight is cancelled by Close too: the handler sees kClose, never kConnect.
TYPED_TEST(EventLoopContract, CloseDuringAConnectEndsItSilently) {
  TypeParam world;
  ASSERT_TRUE(world.ok());
  Log log;
  // Submitted together: whether the kernel connects before the cancel or not, that connect
  // belongs to a closed incarnation.
  world.StartConnect(3);
  world.loop().Close(3);
  ASSERT_TRUE(world.RunUntil(log, [&] { return log.Count(Op::kClose, 3) == 1; }));
  world.Settle(log);
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
