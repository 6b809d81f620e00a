// A seeded simulation of flows (as worker_simulation_test.cc does for requests): one Worker
// running a three-step flow over the fake loop against a simulated shop that logs in (a token
// and a cookie), shows a cart only to a request carrying both, and takes orders; and that now
// and then refuses, closes, resets, stalls, cuts short or garbles its answers. Every seed ends
// with every started request in one outcome, every iteration completed or aborted at one
// step, each step sent exactly as often as the step before it ended ok, and no request that
// lacked what the answers before it gave.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <deque>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "core/testing/simulated_peers.h"
#include "core/testing/worker_test_client.h"
#include "net/testing/seeds.h"

namespace uringload::core {
namespace {

using test_support::Client;
using test_support::kMs;
using test_support::Options;

constexpr char kFlow[] = R"(flow:
  - name: login
    request: POST http://127.0.0.1:8080/login
    body: '{"u":"{i}"}'
    expect: {status: 200}
    extract: {token: 'json:/token', sid: 'cookie:sid'}
  - name: cart
    request: GET http://127.0.0.1:8080/cart?t={token}
    expect: {status: 200, body_contains: items}
    extract: {item: 'json:/items/0'}
    think: uniform:0ms-3ms
  - name: order
    request: POST http://127.0.0.1:8080/order
    body: '{"item":"{item}"}'
    expect: {status: 201}
)";

std::string Answer(int status, std::string_view headers, std::string_view body) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\n" + std::string(headers) +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
}

class SimulatedShop : public test_support::SimulatedPeers {
 public:
  SimulatedShop(uint64_t seed, uint32_t slots, uint16_t cart_port)
      : SimulatedPeers(seed, slots), peers_(slots), cart_port_(cart_port) {}
  uint64_t violations() const { return violations_; }

 private:
  struct Peer {
    uint32_t generation = 0;
    uint16_t port = 0;  // Where the slot connected.
    std::string inbox;
    bool stalled = false;
  };
  struct Reply {
    int64_t due_ns;
    uint32_t slot;
    uint32_t generation;
    std::string request;  // Head and body.
  };

  void OnSubmit(net::FakeEventLoop& l, const net::FakeEventLoop::Submitted& s) override {
    Peer& peer = peers_[s.slot];
    if (s.op == net::Op::kConnect) {
      peer = Peer();
      peer.generation = l.generation(s.slot);
      peer.port = s.port;
      if (Chance(0.02)) {
        l.Complete(s.slot, net::Op::kConnect, -ECONNREFUSED);
      } else {
        l.Complete(s.slot, net::Op::kConnect, 0);
      }
      return;
    }
    if (s.op != net::Op::kSend) return;
    auto size = static_cast<int>(s.bytes.size());
    int sent = size > 1 && Chance(0.1) ? static_cast<int>(1 + Upto(size - 2)) : size;
    l.Complete(s.slot, net::Op::kSend, sent);
    peer.inbox.append(s.bytes, 0, static_cast<size_t>(sent));
    // Whole requests: the head, then Content-Length bytes of body.
    for (;;) {
      size_t end = peer.inbox.find("\r\n\r\n");
      if (end == std::string::npos) return;
      size_t length = 0;
      if (size_t at = peer.inbox.find("Content-Length: "); at != std::string::npos && at < end) {
        length = std::stoul(peer.inbox.substr(at + 16));
      }
      if (peer.inbox.size() < end + 4 + length) return;
      replies_.push_back({l.Now() + Upto(2 * kMs), s.slot, peer.generation,
                          peer.inbox.substr(0, end + 4 + length)});
      peer.inbox.erase(0, end + 4 + length);
    }
  }

  void OnWait(net::FakeEventLoop& l) override {
    TimePassesAndStaleCompletionsArrive(l, test_support::kOk);
    std::deque<Reply> later;
    while (!replies_.empty()) {
      Reply r = std::move(replies_.front());
      replies_.pop_front();
      Peer& peer = peers_[r.slot];
      if (r.generation != l.generation(r.slot) || r.generation != peer.generation) continue;
      if (r.due_ns > l.Now()) {
        later.push_back(std::move(r));
        continue;
      }
      if (!peer.stalled) Respond(l, r.slot, peer, r.request);
    }
    replies_.swap(later);
  }

  // The shop's answer to `request`, or a fault.
  void Respond(net::FakeEventLoop& l, uint32_t slot, Peer& peer, const std::string& request) {
    double roll = Roll();
    if (roll < 0.01) {
      l.Complete(slot, net::Op::kRecv, 0);
      return;
    }
    if (roll < 0.02) {
      l.Complete(slot, net::Op::kRecv, -ECONNRESET);
      return;
    }
    if (roll < 0.025) {
      Receive(l, slot, "HTTP/1.1 2x0 Bad\r\n\r\n");
      return;
    }
    if (roll < 0.03) {
      peer.stalled = true;
      return;
    }
    std::string close = roll < 0.06 ? "Connection: close\r\n" : "";
    std::string answer;
    // Every request on a connection to its own origin, naming it.
    uint16_t port = request.starts_with("GET /cart") ? cart_port_ : 8080;
    if (peer.port != port ||
        request.find("\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n") == std::string::npos) {
      ++violations_;
    }
    if (request.starts_with("POST /login ")) {
      double r = Roll();
      answer = r < 0.03   ? Answer(401, close, "{}")
               : r < 0.06 ? Answer(200, close, R"({"token":"tk"})")  // No cookie.
               : r < 0.08 ? Answer(200, close + "Set-Cookie: sid=s1; Path=/\r\n", "{}")
                          : Answer(200, close + "Set-Cookie: sid=s1; Path=/\r\n",
                                   R"({"token":"tk","user":1})");
    } else if (request.starts_with("GET /cart?t=tk ")) {
      // Sent only after a login that gave the token and the cookie.
      if (request.find("\r\nCookie: sid=s1\r\n") == std::string::npos) ++violations_;
      answer = Roll() < 0.05 ? Answer(200, close, R"({"items":[]})")
                             : Answer(200, close, R"({"items":["i7"]})");
    } else if (request.starts_with("POST /order ")) {
      if (request.find("\r\nCookie: sid=s1\r\n") == std::string::npos ||
          !request.ends_with(R"({"item":"i7"})")) {
        ++violations_;
      }
      answer = Answer(201, close, "{}");
    } else {
      ++violations_;
      answer = Answer(404, close, "");
    }
    size_t cut = Cut(answer.size(), 0.2);
    Receive(l, slot, answer.substr(0, cut));
    if (cut < answer.size()) Receive(l, slot, answer.substr(cut));
    if (!close.empty()) l.Complete(slot, net::Op::kRecv, 0);
  }

  std::vector<Peer> peers_;
  uint16_t cart_port_;
  std::deque<Reply> replies_;
  uint64_t violations_ = 0;
};

struct FlowResult {
  RunStats stats;
  uint64_t violations = 0;
};

constexpr uint64_t kIterations = 300;

// `cart_port`: where the flow's cart goes (8080: the one origin).
FlowResult Simulate(uint64_t seed, const std::string& flow_file, uint16_t cart_port) {
  std::mt19937_64 shape(seed ^ 0xf10e);
  RunOptions options = Options(kIterations, std::vector<int64_t>{1, 3, 8}[shape() % 3]);
  options.url.clear();
  options.flow_file = flow_file;
  options.no_keepalive = shape() % 5 == 0;
  if (shape() % 4 == 0) options.rate = "3000";  // Iterations on a schedule.
  uint32_t lanes = 1;
  if (cart_port != 8080) {
    options.max_origins_per_user = shape() % 3 == 0 ? 1 : 2;
    lanes = static_cast<uint32_t>(options.max_origins_per_user);
  }
  Client client(options);
  SimulatedShop shop(seed, static_cast<uint32_t>(options.concurrency) * lanes, cart_port);
  shop.Attach(client.loop());
  return {client.Run(), shop.violations()};
}

class WorkerFlowSimulationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The same flow with its cart on another origin (a port of its own): each user holds a
    // connection per origin (or, with --max-origins-per-user 1, one that moves between them);
    // the session cookie goes to both, the host being the same.
    std::string two_origins =
        absl::StrReplaceAll(kFlow, {{"http://127.0.0.1:8080/cart", "http://127.0.0.1:8081/cart"}});
    for (auto [path, text] :
         {std::pair{&path_, std::string(kFlow)}, std::pair{&two_origins_, two_origins}}) {
      char name[] = "/tmp/uringload-flow-sim-XXXXXX";
      close(mkstemp(name));
      *path = name;
      std::ofstream(*path) << text;
    }
  }
  void TearDown() override {
    unlink(path_.c_str());
    unlink(two_origins_.c_str());
  }
  // Every seed's run of the flow in `path` (its cart on `cart_port`).
  void SimulateSeeds(const std::string& path, uint16_t cart_port);
  std::string path_;
  std::string two_origins_;
};

TEST_F(WorkerFlowSimulationTest, EveryIterationEndsOnceAndEveryStepFollowsItsAnswer) {
  SimulateSeeds(path_, 8080);
}

// The same over two origins: every step also on a connection to its own origin.
TEST_F(WorkerFlowSimulationTest, OverTwoOriginsEveryStepGoesOnItsOriginsConnection) {
  SimulateSeeds(two_origins_, 8081);
}

void WorkerFlowSimulationTest::SimulateSeeds(const std::string& path, uint16_t cart_port) {
  net::SeedGuard guard;
  std::array<uint64_t, kOutcomeCount> outcomes{};
  uint64_t completed = 0, aborted = 0;
  for (uint64_t seed : net::SimulationSeeds(60)) {
    guard.Running(seed);
    SCOPED_TRACE(testing::Message()
                 << "seed " << seed << " (replay: URINGLOAD_SIM_SEED=" << seed << ")");
    FlowResult r = Simulate(seed, path, cart_port);
    const RunStats& s = r.stats;
    EXPECT_EQ(r.violations, 0u);
    EXPECT_EQ(s.completed(), s.started);
    EXPECT_EQ(s.connections_open, 0u);
    EXPECT_EQ(s.iterations_started, kIterations);
    EXPECT_EQ(s.iterations_completed + s.iterations_aborted, kIterations);
    ASSERT_EQ(s.target_ok.size(), 3u);
    // Step k+1 is sent exactly as often as step k ended ok; each failure aborted one.
    EXPECT_EQ(s.target_ok[0] + s.target_failed[0], kIterations);
    EXPECT_EQ(s.target_ok[1] + s.target_failed[1], s.target_ok[0]);
    EXPECT_EQ(s.target_ok[2] + s.target_failed[2], s.target_ok[1]);
    EXPECT_EQ(s.iterations_completed, s.target_ok[2]);
    EXPECT_EQ(s.iterations_aborted, s.target_failed[0] + s.target_failed[1] + s.target_failed[2]);
    EXPECT_EQ(s.iteration_duration.count, s.iterations_completed);
    for (size_t k = 0; k < kOutcomeCount; ++k) outcomes[k] += s.outcomes[k];
    completed += s.iterations_completed;
    aborted += s.iterations_aborted;
    if (testing::Test::HasFailure()) break;
  }
  if (net::SimulationSeeds(60).size() > 1) {
    for (size_t k = 0; k < kOutcomeCount; ++k) EXPECT_GT(outcomes[k], 0u) << "outcome " << k;
    EXPECT_GT(completed, 0u);
    EXPECT_GT(aborted, 0u);
  }
}

}  // namespace
}  // namespace uringload::core
