// RingEventLoop's UDP slots over real loopback sockets: one send goes out as many datagrams
// (UDP_SEGMENT), a run of them comes back joined with its datagram size (UDP_GRO), a closed
// port is -ECONNREFUSED on the receive, and Close ends a slot with a receive armed. A QUIC
// server's listener names each sender, and a socket connected back to one sender from the
// listener's port takes that sender's next datagrams.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "net/address.h"
#include "net/listener.h"
#include "net/ring_event_loop.h"

namespace uringload::net {
namespace {

class Recorder : public CompletionHandler {
 public:
  void OnCompletion(const Completion& c) override {
    switch (c.op) {
      case Op::kConnect:
        connect_res = c.res;
        break;
      case Op::kSend:
        send_res = c.res;
        break;
      case Op::kRecv:
        if (c.res > 0) {
          received.append(c.data);
          // Split as a QUIC endpoint would: datagram_size bytes each, the last one shorter.
          for (size_t at = 0; at < c.data.size(); at += c.datagram_size) {
            datagrams.push_back(std::min<size_t>(c.datagram_size, c.data.size() - at));
          }
          ++receives;
          receive_slot = c.slot;
          if (c.peer != nullptr) peer.assign(reinterpret_cast<const char*>(c.peer), c.peer_length);
        } else {
          receive_error = c.res;
        }
        break;
      case Op::kClose:
        closed = true;
        break;
      default:
        ADD_FAILURE() << "op " << static_cast<int>(c.op);
    }
  }
  int connect_res = 1;
  int send_res = 1;
  int receive_error = 0;
  int receives = 0;
  uint32_t receive_slot = 0;
  std::string peer;  // The last receive's sender, as the sockaddr's bytes.
  bool closed = false;
  std::string received;
  std::vector<size_t> datagrams;  // Each datagram's length, in order.
};

std::unique_ptr<RingEventLoop> MakeLoop() {
  absl::StatusOr<std::unique_ptr<RingEventLoop>> loop =
      RingEventLoop::Create({.slots = 2,
                             .sq_entries = 64,
                             .cq_entries = 256,
                             .receive_connections = 4,
                             .datagram_buffers = 8});
  EXPECT_TRUE(loop.ok()) << loop.status();
  return loop.ok() ? *std::move(loop) : nullptr;
}

// A UDP socket on 127.0.0.1 with a port the kernel chose.
UniqueFd BoundPeer(uint16_t* port) {
  UniqueFd fd(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    return UniqueFd();
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

// Runs the loop until `done` or 2 s passed.
template <typename Done>
void Turn(RingEventLoop& loop, Recorder& recorder, Done done) {
  for (int i = 0; i < 200 && !done(); ++i) {
    ASSERT_TRUE(loop.SubmitAndWait(10'000'000, 1).ok());
    loop.Drain(recorder);
  }
}

std::string Pattern(size_t size, int seed) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>('a' + (i * 7 + seed) % 26);
  return s;
}

// A loop with datagram buffers, a UDP peer on 127.0.0.1 and its address.
class RingEventLoopDatagramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loop = MakeLoop();
    ASSERT_NE(loop, nullptr);
    peer = BoundPeer(&port);
    ASSERT_GE(peer.get(), 0);
    absl::StatusOr<SocketAddress> resolved = Resolve("127.0.0.1", port);
    ASSERT_TRUE(resolved.ok());
    target = *resolved;
  }
  // A UDP socket in `slot` connected to the peer, its receive armed.
  void ConnectAndReceive(uint32_t slot) {
    loop->ConnectDatagram(slot, target, nullptr);
    Turn(*loop, recorder, [&] { return recorder.connect_res != 1; });
    ASSERT_EQ(recorder.connect_res, 0);  // UDP's connect only sets the peer.
    loop->Receive(slot);
  }

  std::unique_ptr<RingEventLoop> loop;
  uint16_t port = 0;
  UniqueFd peer;
  SocketAddress target;
  Recorder recorder;
};

TEST_F(RingEventLoopDatagramTest, OneSendIsSplitIntoDatagramsAndARunComesBackJoined) {
  ConnectAndReceive(0);

  // 10 datagrams of 1,200 bytes and one of 345 in one send.
  std::string out = Pattern(10 * 1200 + 345, 1);
  loop->SendDatagrams(0, out.data(), static_cast<uint32_t>(out.size()), 1200);
  Turn(*loop, recorder, [&] { return recorder.send_res != 1; });
  ASSERT_EQ(recorder.send_res, static_cast<int>(out.size()));
  sockaddr_in client{};
  std::string arrived;
  for (int i = 0; i < 11; ++i) {
    char datagram[2048];
    socklen_t length = sizeof(client);
    ssize_t n = recvfrom(peer.get(), datagram, sizeof(datagram), MSG_DONTWAIT,
                         reinterpret_cast<sockaddr*>(&client), &length);
    ASSERT_EQ(n, i < 10 ? 1200 : 345) << "datagram " << i;
    arrived.append(datagram, static_cast<size_t>(n));
  }
  EXPECT_TRUE(arrived == out);

  // The peer answers with 20 datagrams of 1,000 bytes in one GSO send, then one of 999: the
  // client's socket (UDP_GRO) takes the run in one receive that says 1,000 bytes each.
  std::string back = Pattern(20 * 1000, 2);
  iovec iov{.iov_base = back.data(), .iov_len = back.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(uint16_t))] = {};
  msghdr msg{};
  msg.msg_name = &client;
  msg.msg_namelen = sizeof(client);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_UDP;
  cmsg->cmsg_type = UDP_SEGMENT;
  cmsg->cmsg_len = CMSG_LEN(sizeof(uint16_t));
  uint16_t segment = 1000;
  memcpy(CMSG_DATA(cmsg), &segment, sizeof(segment));
  ASSERT_EQ(sendmsg(peer.get(), &msg, 0), static_cast<ssize_t>(back.size()));
  std::string last = Pattern(999, 3);
  ASSERT_EQ(sendto(peer.get(), last.data(), last.size(), 0, reinterpret_cast<sockaddr*>(&client),
                   sizeof(client)),
            999);
  Turn(*loop, recorder, [&] { return recorder.received.size() >= back.size() + last.size(); });
  EXPECT_TRUE(recorder.received == back + last);
  std::vector<size_t> expected(20, 1000);
  expected.push_back(999);
  EXPECT_EQ(recorder.datagrams, expected);
  // Joined: the 20 came in fewer receives than datagrams (loopback keeps a GSO run whole).
  EXPECT_LT(recorder.receives, 21);
  EXPECT_EQ(recorder.receive_error, 0);

  loop->Close(0);
  Turn(*loop, recorder, [&] { return recorder.closed; });
  EXPECT_TRUE(recorder.closed);
}

TEST_F(RingEventLoopDatagramTest, AClosedPortIsConnectionRefusedOnTheReceive) {
  peer = UniqueFd();  // Nobody listens on the port now.
  ConnectAndReceive(1);
  std::string out = "hello";
  loop->SendDatagrams(1, out.data(), static_cast<uint32_t>(out.size()), 1200);
  Turn(*loop, recorder, [&] { return recorder.receive_error != 0; });
  EXPECT_EQ(recorder.receive_error, -ECONNREFUSED);
  EXPECT_EQ(recorder.received, "");
  loop->Close(1);
  Turn(*loop, recorder, [&] { return recorder.closed; });
  EXPECT_TRUE(recorder.closed);
}

TEST_F(RingEventLoopDatagramTest, ASlotClosedWithAReceiveArmedCarriesTcpNext) {
  ConnectAndReceive(0);
  loop->Close(0);
  Turn(*loop, recorder, [&] { return recorder.closed; });
  ASSERT_TRUE(recorder.closed);
  EXPECT_EQ(recorder.receive_error, 0);  // The cancelled receive is the old incarnation's.

  // The same slot as a TCP connection to a closed port: the stream path, unchanged.
  recorder.connect_res = 1;
  loop->Connect(0, target, nullptr);
  Turn(*loop, recorder, [&] { return recorder.connect_res != 1; });
  EXPECT_EQ(recorder.connect_res, -ECONNREFUSED);
}

TEST_F(RingEventLoopDatagramTest, AListenerNamesTheSenderAndAConnectedSocketTakesItsNext) {
  absl::StatusOr<SocketAddress> any = Resolve("127.0.0.1", 0);
  ASSERT_TRUE(any.ok());
  absl::StatusOr<UniqueFd> listener = OpenDatagramListener(*any);
  ASSERT_TRUE(listener.ok()) << listener.status();
  SocketAddress local;
  local.length = sizeof(local.storage);
  ASSERT_EQ(
      getsockname(listener->get(), reinterpret_cast<sockaddr*>(&local.storage), &local.length), 0);
  EXPECT_FALSE(CheckAddressFree(local, SOCK_DGRAM).ok());  // The port is taken, for UDP.
  loop->ListenDatagram(0, listener->get());
  loop->Receive(0);

  // The peer writes to the listener: the receive names the peer.
  ASSERT_EQ(sendto(peer.get(), "first", 5, 0, local.get(), local.length), 5);
  Turn(*loop, recorder, [&] { return recorder.received.size() >= 5; });
  ASSERT_EQ(recorder.received, "first");
  EXPECT_EQ(recorder.receive_slot, 0u);
  ASSERT_EQ(recorder.peer.size(), static_cast<size_t>(target.length));
  EXPECT_EQ(memcmp(recorder.peer.data(), target.get(), target.length), 0);

  // A socket of the listener's port connected to the peer: the peer's next datagram is its.
  loop->ConnectDatagram(1, target, &local);
  Turn(*loop, recorder, [&] { return recorder.connect_res != 1; });
  ASSERT_EQ(recorder.connect_res, 0);
  loop->Receive(1);
  ASSERT_EQ(sendto(peer.get(), "second", 6, 0, local.get(), local.length), 6);
  Turn(*loop, recorder, [&] { return recorder.received.size() >= 11; });
  EXPECT_EQ(recorder.received, "firstsecond");
  EXPECT_EQ(recorder.receive_slot, 1u);
  // What the connected socket sends comes from the listener's port.
  loop->SendDatagrams(1, "third", 5, 1200);
  Turn(*loop, recorder, [&] { return recorder.send_res != 1; });
  sockaddr_storage from{};
  socklen_t from_length = sizeof(from);
  char got[16];
  ASSERT_EQ(
      recvfrom(peer.get(), got, sizeof(got), 0, reinterpret_cast<sockaddr*>(&from), &from_length),
      5);
  ASSERT_EQ(from_length, local.length);
  EXPECT_EQ(memcmp(&from, local.get(), local.length), 0);
  for (uint32_t slot : {0u, 1u}) {
    recorder.closed = false;
    loop->Close(slot);
    Turn(*loop, recorder, [&] { return recorder.closed; });
  }
}

}  // namespace
}  // namespace uringload::net
