// A seeded simulation of `serve` (TigerBeetle's way): one ServerWorker over the fake loop with
// every fault on, against simulated clients whose every move comes from a PRNG seeded per run:
// requests whole or in pieces, pipelined bursts (some deeper than the server queues), bad
// requests, `Connection: close`, `Expect: 100-continue`, clients that close or reset, sends
// that end short or fail, and completions of closed incarnations. At the end every response
// the clients received is counted exactly once in the server's statistics, no request is
// answered twice, every connection is closed, and no URINGLOAD_CHECK fired on the way (one
// would abort the test). A failing seed is printed; URINGLOAD_SIM_SEED=N replays it alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/serve/server_worker.h"
#include "core/testing/text_counts.h"
#include "net/testing/fake_event_loop.h"
#include "net/testing/seeds.h"

namespace uringload::core {
namespace {

using test_support::Occurrences;

using net::FakeEventLoop;
using net::Op;

using test_support::kMs;
constexpr uint32_t kSlots = 8;

// The clients: up to kSlots connections at once, each a random sequence of moves.
class SimulatedClients {
 public:
  SimulatedClients(uint64_t seed, int connections) : random_(seed), left_(connections) {}

  void Attach(FakeEventLoop& loop, std::atomic<bool>& stop) {
    loop.on_submit = [this](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
      OnSubmit(l, s);
    };
    loop.on_wait = [this](FakeEventLoop& l) { OnWait(l); };
    loop.on_idle = [this, &stop] {
      if (Done()) stop = true;  // Else time passes until the next move.
    };
  }
  uint64_t accepted() const { return accepted_; }
  // What the clients received (100 Continue aside), from everything the server sent: every
  // response, and of them the 400s and 431s for bad requests.
  std::pair<uint64_t, uint64_t> ResponsesSeen(const FakeEventLoop& l) const {
    std::string all;
    for (const FakeEventLoop::Submitted& s : l.submitted()) {
      if (s.op == Op::kSend) all += s.bytes;
    }
    return {Occurrences(all, "HTTP/1.1 ") - Occurrences(all, "HTTP/1.1 100 Continue"),
            Occurrences(all, "HTTP/1.1 400 ") + Occurrences(all, "HTTP/1.1 431 ")};
  }

 private:
  struct Conn {
    bool open = false;           // Accepted and not yet closed by the server.
    bool client_closed = false;  // The client has closed or reset: it sends nothing more.
    int moves_left = 0;
    int64_t next_ns = 0;
    uint64_t next_index = 0;
  };

  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
  int64_t Upto(int64_t hi) { return std::uniform_int_distribution<int64_t>(0, hi)(random_); }
  bool Done() const {
    if (left_ > 0) return false;
    for (const Conn& c : conns_) {
      if (c.open) return false;
    }
    return true;
  }

  void OnSubmit(FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kClose) {
      conns_[s.slot] = Conn{};
      return;
    }
    if (s.op != Op::kSend) return;
    auto size = static_cast<int>(s.bytes.size());
    if (Chance(0.02)) {
      l.Complete(s.slot, Op::kSend, -EPIPE);
    } else if (size > 1 && Chance(0.03)) {
      l.Complete(s.slot, Op::kSend, static_cast<int>(1 + Upto(size - 2)));  // Short.
    } else {
      l.Complete(s.slot, Op::kSend, size);
    }
  }

  void Arrive(FakeEventLoop& l, uint32_t slot, const std::string& bytes) {
    l.Complete(slot, Op::kRecv, static_cast<int>(bytes.size()), bytes);
  }
  std::string Request(Conn& c, bool close = false) {
    return "GET /r/" + std::to_string(c.next_index++) + " HTTP/1.1\r\nHost: x\r\n" +
           (close ? "Connection: close\r\n" : "") + "\r\n";
  }

  void OnWait(FakeEventLoop& l) {
    if (Chance(0.3)) l.Advance(Upto(2 * kMs));
    for (uint32_t slot = 0; slot < kSlots; ++slot) {
      Conn& c = conns_[slot];
      if (!c.open && left_ > 0 && Chance(0.3)) {  // A new connection in a free slot.
        --left_;
        ++accepted_;
        c = Conn{.open = true,
                 .client_closed = false,
                 .moves_left = static_cast<int>(1 + Upto(30)),
                 .next_ns = l.Now(),
                 .next_index = 0};
        l.Complete(0, Op::kAccept, static_cast<int>(slot));
        continue;
      }
      if (c.open && !c.client_closed && l.Now() >= c.next_ns) Move(l, slot, c);
    }
    if (Chance(0.02)) {  // A late completion of a closed incarnation: the loop drops it.
      auto slot = static_cast<uint32_t>(Upto(kSlots - 1));
      if (l.generation(slot) > 0) l.CompleteStale(slot, Op::kRecv, 4, "GET ");
    }
  }

  void Move(FakeEventLoop& l, uint32_t slot, Conn& c) {
    c.next_ns = l.Now() + Upto(3 * kMs);
    if (--c.moves_left <= 0) {  // The client is done: it closes.
      l.Complete(slot, Op::kRecv, 0);
      c.client_closed = true;
      return;
    }
    double roll = std::uniform_real_distribution<double>(0, 1)(random_);
    if (roll < 0.02) {
      l.Complete(slot, Op::kRecv, -ECONNRESET);
      c.client_closed = true;
    } else if (roll < 0.05) {
      Arrive(l, slot, "BAD\r\n\r\n");  // 400, then the server closes.
    } else if (roll < 0.07) {
      Arrive(l, slot, Request(c, /*close=*/true));
    } else if (roll < 0.10) {
      Arrive(l, slot,
             "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
             "Expect: 100-continue\r\n\r\n");
      Arrive(l, slot, "ok");
    } else if (roll < 0.20) {  // A pipelined burst, now and then deeper than 16.
      std::string burst;
      for (int64_t k = 2 + Upto(18); k > 0; --k) burst += Request(c);
      Arrive(l, slot, burst);
    } else {
      std::string bytes = Request(c);
      if (Chance(0.2)) {  // In two pieces.
        size_t cut = 1 + static_cast<size_t>(Upto(static_cast<int64_t>(bytes.size()) - 2));
        Arrive(l, slot, bytes.substr(0, cut));
        Arrive(l, slot, bytes.substr(cut));
      } else {
        Arrive(l, slot, bytes);
      }
    }
  }

  std::mt19937_64 random_;
  int left_;
  uint64_t accepted_ = 0;
  Conn conns_[kSlots];
};

struct Simulation {
  ServerRunStats stats;
  uint64_t accepted = 0;
  uint64_t responses_seen = 0;
  uint64_t rejects_seen = 0;  // Of them, 400s and 431s.
};

Simulation Simulate(uint64_t seed) {
  ServeOptions options;
  options.threads = 1;
  options.max_connections = 64;
  options.delay = "uniform:0ms-4ms";
  options.fault_reset = options.fault_partial = options.fault_malformed = 0.01;
  options.fault_stall = 0.005;
  options.fault_status = 503;
  options.fault_status_rate = 0.05;
  options.seed = seed;
  ServePlan plan = *MakeServePlan(options);
  FixedResponses fixed = MakeFixedResponses(plan);
  ServerStats stats;
  std::atomic<bool> stop{false};
  auto owned = std::make_unique<FakeEventLoop>(plan.table_size);
  FakeEventLoop& loop = *owned;
  SimulatedClients clients(seed, 40);
  clients.Attach(loop, stop);
  ServerWorker worker(&plan, &fixed, 0, &stats, &stop, std::move(owned));
  EXPECT_TRUE(worker.Run().ok());
  auto [responses, rejects] = clients.ResponsesSeen(loop);
  return {stats.Snapshot(), clients.accepted(), responses, rejects};
}

TEST(ServerWorkerSimulationTest, EveryResponseIsCountedOnceAndEveryConnectionEnds) {
  net::SeedGuard guard;
  ServerRunStats all;
  for (uint64_t seed : net::SimulationSeeds(200)) {
    guard.Running(seed);
    SCOPED_TRACE(testing::Message()
                 << "seed " << seed << " (replay: URINGLOAD_SIM_SEED=" << seed << ")");
    Simulation r = Simulate(seed);
    const ServerRunStats& s = r.stats;
    auto fault = [&](Fault f) { return s.faults[static_cast<size_t>(f)]; };
    // Every response that went out, whole or cut, is one count: answered (200 or the status
    // fault), partial or malformed; a bad request is counted when it arrives, and its 400 or
    // 431 goes out unless the connection ends first.
    EXPECT_EQ(r.responses_seen - r.rejects_seen,
              s.requests_answered + fault(Fault::kPartial) + fault(Fault::kMalformed));
    EXPECT_LE(r.rejects_seen, s.bad_requests);
    // No request ends twice; the rest died with their connection (closed, reset, overflowed).
    EXPECT_LE(s.requests_answered + fault(Fault::kReset) + fault(Fault::kPartial) +
                  fault(Fault::kMalformed) + fault(Fault::kStall),
              s.requests_received);
    EXPECT_EQ(s.connections_accepted, r.accepted);
    EXPECT_EQ(s.connections_open, 0u);
    all.Merge(s);
    if (testing::Test::HasFailure()) break;
  }
  if (net::SimulationSeeds(200).size() >
      1) {  // Every kind of ending happened: otherwise this proves little.
    for (Fault f :
         {Fault::kReset, Fault::kPartial, Fault::kMalformed, Fault::kStall, Fault::kStatus}) {
      EXPECT_GT(all.faults[static_cast<size_t>(f)], 0u) << kFaultNames[static_cast<size_t>(f)];
    }
    EXPECT_GT(all.bad_requests, 0u);
    EXPECT_GT(all.pipeline_overflow, 0u);
  }
}

TEST(ServerWorkerSimulationTest, ASeedReplaysExactly) {
  Simulation a = Simulate(42);
  Simulation b = Simulate(42);
  EXPECT_EQ(a.stats.requests_received, b.stats.requests_received);
  EXPECT_EQ(a.stats.requests_answered, b.stats.requests_answered);
  EXPECT_EQ(a.stats.faults, b.stats.faults);
  EXPECT_EQ(a.responses_seen, b.responses_seen);
}

}  // namespace
}  // namespace uringload::core
