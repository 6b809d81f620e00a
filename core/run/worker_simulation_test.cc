// A seeded simulation of the client (TigerBeetle's way): one Worker over the fake loop against
// a simulated server whose every decision comes from a PRNG seeded per run: connects refused or
// never answered, sends reset or cut short, responses split into pieces, late, closed, reset,
// malformed, cut off or never sent, `Connection: close`, receive buffers running dry, and
// completions of closed incarnations. Each seed runs thousands of steps; at the end every
// started request has exactly one outcome, and no URINGLOAD_CHECK fired on the way (one
// would abort the test). A failing seed is printed; URINGLOAD_SIM_SEED=N replays it alone.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "core/testing/simulated_peers.h"
#include "core/testing/simulation_seeds.h"
#include "core/testing/worker_test_client.h"
#include "net/testing/seeds.h"

namespace uringload::core {
namespace {

using test_support::Client;
using test_support::kMs;
using test_support::kOk;
using test_support::Options;

constexpr char kClose[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
// Complete answers that the checks of some shapes reject (check_failed).
constexpr char kBusy[] = "HTTP/1.1 503 Busy\r\nContent-Length: 2\r\n\r\nok";
constexpr char kWrongBody[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno";

// The server side of every connection, as the fake loop's scripted peer.
class SimulatedServer : public test_support::SimulatedPeers {
 public:
  SimulatedServer(uint64_t seed, uint32_t slots) : SimulatedPeers(seed, slots), peers_(slots) {}

 private:
  struct Peer {
    uint32_t generation = 0;
    std::string inbox;     // Request bytes not yet a whole request.
    bool stalled = false;  // Answers nothing more on this connection.
  };
  struct Reply {
    int64_t due_ns;
    uint32_t slot;
    uint32_t generation;
  };

  void OnSubmit(net::FakeEventLoop& l, const net::FakeEventLoop::Submitted& s) override {
    Peer& peer = peers_[s.slot];
    switch (s.op) {
      case net::Op::kConnect:
        peer = Peer();
        peer.generation = l.generation(s.slot);
        if (Chance(0.04)) {
          l.Complete(s.slot, net::Op::kConnect, -ECONNREFUSED);
        } else if (!Chance(0.02)) {  // Else never answered: the connect timeout ends it.
          l.Complete(s.slot, net::Op::kConnect, 0);
        }
        return;
      case net::Op::kSend: {
        auto size = static_cast<int>(s.bytes.size());
        if (Chance(0.02)) {
          l.Complete(s.slot, net::Op::kSend, -ECONNRESET);
          return;
        }
        // A short send: the worker sends the rest itself.
        int sent = size > 1 && Chance(0.1) ? static_cast<int>(1 + Upto(size - 2)) : size;
        l.Complete(s.slot, net::Op::kSend, sent);
        peer.inbox.append(s.bytes, 0, static_cast<size_t>(sent));
        for (size_t end; (end = peer.inbox.find("\r\n\r\n")) != std::string::npos;) {
          peer.inbox.erase(0, end + 4);
          replies_.push_back({l.Now() + Upto(3 * kMs), s.slot, peer.generation});
        }
        return;
      }
      default:
        return;
    }
  }

  // Time passes, due replies go out in order, and now and then a completion of a closed
  // incarnation arrives late (the loop must drop it).
  void OnWait(net::FakeEventLoop& l) override {
    TimePassesAndStaleCompletionsArrive(l, kOk);
    std::deque<Reply> later;
    while (!replies_.empty()) {
      Reply r = replies_.front();
      replies_.pop_front();
      Peer& peer = peers_[r.slot];
      if (r.generation != l.generation(r.slot) || r.generation != peer.generation) continue;
      if (r.due_ns > l.Now()) {
        later.push_back(r);
        continue;
      }
      if (!peer.stalled) Answer(l, r.slot, peer);
    }
    replies_.swap(later);
  }

  void Answer(net::FakeEventLoop& l, uint32_t slot, Peer& peer) {
    double roll = Roll();
    auto recv = [&](std::string bytes) { Receive(l, slot, std::move(bytes)); };
    if (roll < 0.01) {
      l.Complete(slot, net::Op::kRecv, 0);  // The peer closes.
    } else if (roll < 0.02) {
      l.Complete(slot, net::Op::kRecv, -ECONNRESET);
    } else if (roll < 0.03) {
      recv("HTTP/1.1 2x0 Bad\r\n\r\n");  // Malformed.
    } else if (roll < 0.04) {
      recv(std::string(kOk, 20));  // Cut off by a close.
      l.Complete(slot, net::Op::kRecv, 0);
    } else if (roll < 0.05) {
      peer.stalled = true;  // Never answers again: the request timeout ends it.
    } else if (roll < 0.08) {
      recv(kClose);
    } else if (roll < 0.09) {
      recv(kBusy);
    } else if (roll < 0.10) {
      recv(kWrongBody);
    } else {
      if (Chance(0.02)) l.Complete(slot, net::Op::kRecv, -ENOBUFS, {}, /*more=*/false);
      std::string bytes = kOk;
      size_t cut = Cut(bytes.size(), 0.2);
      recv(bytes.substr(0, cut));
      if (cut < bytes.size()) recv(bytes.substr(cut));
    }
  }

  std::vector<Peer> peers_;
  std::deque<Reply> replies_;
};

struct SimulationResult {
  RunStats stats;
  uint64_t requests = 0;
};

SimulationResult Simulate(uint64_t seed) {
  std::mt19937_64 shape(seed ^ 0x5eed);
  RunOptions options = Options(2000, std::vector<int64_t>{1, 3, 8}[shape() % 3]);
  options.pipeline = shape() % 2 == 0 ? 1 : 4;
  options.no_keepalive = shape() % 5 == 0;
  if (options.no_keepalive) options.pipeline = 1;
  if (shape() % 4 == 0) options.rate = "5000";  // The open model.
  if (shape() % 3 != 0) {  // Checks: a 503 or a body without "ok" ends check_failed.
    options.expect_status = "2xx";
    options.expect_body_contains = "ok";
  }
  Client client(options);
  SimulatedServer server(seed, static_cast<uint32_t>(options.concurrency));
  server.Attach(client.loop());
  return {client.Run(), 2000};
}

TEST(WorkerSimulationTest, EveryStartedRequestEndsInExactlyOneOutcome) {
  test_support::SeedTotals totals = test_support::RunSeeds(200, Simulate);
  // Every kind of ending happened: a simulation that never fails anything proves nothing.
  if (totals.many) {
    for (size_t k = 0; k < kOutcomeCount; ++k) {
      EXPECT_GT(totals.outcomes[k], 0u) << "outcome " << k;
    }
  }
}

// The same seed gives the same run, so a failing seed replays.
TEST(WorkerSimulationTest, ASeedReplaysExactly) {
  SimulationResult a = Simulate(42);
  SimulationResult b = Simulate(42);
  EXPECT_EQ(a.stats.outcomes, b.stats.outcomes);
  EXPECT_EQ(a.stats.causes, b.stats.causes);
  EXPECT_EQ(a.stats.bytes_sent, b.stats.bytes_sent);
  EXPECT_EQ(a.stats.latency.counts, b.stats.latency.counts);
}

}  // namespace
}  // namespace uringload::core
