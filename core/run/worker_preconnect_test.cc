// --preconnect on the fake event loop: connections open while the worker waits for --start-at,
// no request starts before it, and a connection that is not open by then (failed, still
// connecting, or queued in the connect ramp) still carries its first request exactly once.
#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/testing/worker_test_client.h"

namespace uringload::core {
namespace {

using test_support::Client;
using test_support::FakeEventLoop;
using test_support::kMs;
using test_support::kOk;
using test_support::Op;
using test_support::Options;

constexpr int64_t kClockStart = 1'000'000'000;  // FakeEventLoop's clock at construction.
constexpr int64_t kStart = kClockStart + 50 * kMs;

RunOptions Preconnect(int64_t n, int64_t c) {
  RunOptions o = Options(n, c);
  // The plan needs a future --start-at; the worker waits for kStart on the fake clock instead.
  o.start_at = absl::StrCat(absl::ToUnixSeconds(absl::Now()) + 3600);
  o.preconnect = true;
  return o;
}

// Answers every send at once; connects succeed `connect_delay_ns` after they were submitted
// (at the next wait from then on), except those whose attempt number is in `refused`.
struct Peer {
  int64_t connect_delay_ns = 0;
  std::vector<int> refused;
  std::vector<int64_t> connect_times, send_times;
  std::map<uint32_t, int64_t> connecting;  // slot -> when it succeeds.

  void Attach(FakeEventLoop& loop) {
    loop.on_submit = [this](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
      if (s.op == Op::kConnect) {
        int attempt = static_cast<int>(connect_times.size());
        connect_times.push_back(l.Now());
        if (std::find(refused.begin(), refused.end(), attempt) != refused.end()) {
          l.Complete(s.slot, Op::kConnect, -ECONNREFUSED);
        } else if (connect_delay_ns == 0) {
          l.Complete(s.slot, Op::kConnect, 0);
        } else {
          connecting[s.slot] = l.Now() + connect_delay_ns;
        }
      }
      if (s.op == Op::kSend) {
        send_times.push_back(l.Now());
        l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
        l.Complete(s.slot, Op::kRecv, static_cast<int>(sizeof(kOk) - 1), kOk);
      }
    };
    loop.on_wait = [this](FakeEventLoop& l) {
      for (auto it = connecting.begin(); it != connecting.end();) {
        if (it->second > l.Now()) {
          ++it;
          continue;
        }
        l.Complete(it->first, Op::kConnect, 0);
        it = connecting.erase(it);
      }
    };
  }
};

TEST(PreconnectTest, EveryConnectionOpensBeforeTheStartAndNoRequestBeforeIt) {
  Client client(Preconnect(6, 3), kStart);
  Peer peer;
  peer.Attach(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 6u);
  EXPECT_EQ(s.preconnected, 3u);
  EXPECT_EQ(s.connections_opened, 3u);
  ASSERT_EQ(peer.connect_times.size(), 3u);
  for (int64_t t : peer.connect_times) EXPECT_LT(t, kStart);
  ASSERT_EQ(peer.send_times.size(), 6u);
  for (int64_t t : peer.send_times) EXPECT_GE(t, kStart);
  EXPECT_LT(s.start_skew_ns, uint64_t{10 * kMs});
}

TEST(PreconnectTest, AConnectionThatFailedConnectsAgainForItsFirstRequest) {
  Client client(Preconnect(4, 2), kStart);
  Peer peer;
  peer.refused = {0};  // The first preconnect is refused; its retry (for a request) is not.
  peer.Attach(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 4u);
  EXPECT_EQ(s.outcome(Outcome::kConnectError), 0u);  // No request was on it.
  EXPECT_EQ(s.preconnected, 1u);
  ASSERT_EQ(peer.connect_times.size(), 3u);
  EXPECT_GE(peer.connect_times[2], kStart);
}

TEST(PreconnectTest, ConnectsStillConnectingOrQueuedAtTheStartCarryTheirFirstRequest) {
  RunOptions o = Preconnect(9, 3);
  o.max_connecting = 1;      // One connect at a time, 30 ms each: one open, one connecting, one
  Client client(o, kStart);  // queued when the start comes at 50 ms.
  Peer peer;
  peer.connect_delay_ns = 30 * kMs;
  peer.Attach(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 9u);
  EXPECT_EQ(s.completed(), 9u);
  EXPECT_EQ(s.preconnected, 1u);
  EXPECT_EQ(peer.connect_times.size(), 3u);  // Each connection connected exactly once.
  EXPECT_EQ(s.connections_opened, 3u);
}

TEST(PreconnectTest, TheOpenModelUsesThePreconnectedConnections) {
  RunOptions o = Preconnect(5, 2);
  o.rate = "100";
  Client client(o, kStart);
  Peer peer;
  peer.Attach(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 5u);
  EXPECT_EQ(s.preconnected, 2u);
  EXPECT_EQ(peer.connect_times.size(), 2u);
  for (int64_t t : peer.send_times) EXPECT_GE(t, kStart);
}

TEST(PreconnectTest, WhenTheScheduleEndsThePreconnectedConnectionsClose) {
  RunOptions o = Preconnect(2, 2);
  o.rate = "1000";
  Client client(o, kStart);
  Peer peer;
  peer.Attach(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 2u);
  EXPECT_EQ(client.loop().Count(Op::kClose), 2u);
}

TEST(PreconnectTest, AStopDuringTheWaitStartsNoRequest) {
  Client client(Preconnect(4, 2), kStart);
  Peer peer;
  peer.Attach(client.loop());
  client.loop().on_wait = [&client](FakeEventLoop&) { client.stop() = true; };
  RunStats s = client.Run();
  EXPECT_EQ(s.started, 0u);
  EXPECT_EQ(client.loop().Count(Op::kSend), 0u);
}

}  // namespace
}  // namespace uringload::core
