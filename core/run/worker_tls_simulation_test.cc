// A seeded simulation of the client over TLS, as worker_simulation_test.cc is over plain TCP:
// one Worker over TlsEventLoop over the fake loop, each connection against a real OpenSSL
// server (a TlsEventLoop of its own) that answers HTTP/1.1, with every decision from a PRNG
// seeded per run. What is tested is where records fall: the server's ciphertext reaches the
// client cut at random bytes (a record in pieces, the end of one and the start of the next,
// several records and the handshake's flights together), late; and the ways a TLS connection
// ends: close_notify then the TCP close, a close without close_notify, a reset, a forged
// record, requests never answered, connects refused. At the end every started request has
// exactly one outcome, and no URINGLOAD_CHECK fired on the way. A failing seed is printed;
// URINGLOAD_SIM_SEED=N replays it alone.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/testing/simulated_peers.h"
#include "core/testing/simulation_seeds.h"
#include "core/testing/worker_test_client.h"
#include "net/testing/seeds.h"
#include "net/testing/tls_loopback.h"

namespace uringload::core {
namespace {

using test_support::Client;
using test_support::kMs;
using test_support::kOk;
using test_support::Options;

// One connection's server: OpenSSL behind a TlsEventLoop over a fake loop of one slot. Its
// ciphertext collects in `to_client`; the client's goes in through Feed.
class TlsPeer : public net::CompletionHandler {
 public:
  explicit TlsPeer(std::shared_ptr<net::TlsContext> context) {
    auto fake = std::make_unique<net::FakeEventLoop>(1);
    fake_ = fake.get();
    fake_->on_submit = [this](net::FakeEventLoop& l, const net::FakeEventLoop::Submitted& s) {
      if (s.op == net::Op::kSend) {
        l.Complete(0, net::Op::kSend, static_cast<int>(s.bytes.size()));
        to_client += s.bytes;
      }
    };
    tls_ = std::make_unique<net::TlsEventLoop>(std::move(fake), std::move(context), 1, "");
    fake_->Complete(0, net::Op::kAccept, 0, "", true);
    Pump();
  }
  // The client's ciphertext, then whatever the server does about it.
  void Feed(const std::string& bytes) {
    fake_->Complete(0, net::Op::kRecv, static_cast<int>(bytes.size()), bytes);
    Pump();
  }
  // The server closes: close_notify goes out first.
  void Close() {
    tls_->Close(0);
    Pump();
  }
  bool stall = false;  // Answers nothing more.
  std::string to_client;

 private:
  void Pump() {
    for (int i = 0; i < 4; ++i) tls_->Drain(*this);
  }
  void OnCompletion(const net::Completion& c) override {
    if (c.op == net::Op::kRecv && c.res > 0) {
      inbox_.append(c.data);
      for (size_t end; (end = inbox_.find("\r\n\r\n")) != std::string::npos;) {
        inbox_.erase(0, end + 4);
        ++unanswered_;
      }
    }
    if (c.op == net::Op::kSend) sending_ = false;
    if (!sending_ && unanswered_ > 0 && !stall) {
      --unanswered_;
      sending_ = true;
      tls_->Send(0, kOk, sizeof kOk - 1);
    }
  }

  net::FakeEventLoop* fake_;
  std::unique_ptr<net::TlsEventLoop> tls_;
  std::string inbox_;
  int unanswered_ = 0;
  bool sending_ = false;
};

// The server side of every connection, as the client's fake loop's scripted peer.
class SimulatedTlsServer : public test_support::SimulatedPeers {
 public:
  SimulatedTlsServer(uint64_t seed, uint32_t slots, std::shared_ptr<net::TlsContext> context)
      : SimulatedPeers(seed, slots), context_(std::move(context)), peers_(slots), due_(slots) {}

 private:
  void OnSubmit(net::FakeEventLoop& l, const net::FakeEventLoop::Submitted& s) override {
    std::unique_ptr<TlsPeer>& peer = peers_[s.slot];
    switch (s.op) {
      case net::Op::kConnect:
        peer.reset();
        generations_[s.slot] = l.generation(s.slot);
        if (Chance(0.03)) {
          l.Complete(s.slot, net::Op::kConnect, -ECONNREFUSED);
          return;
        }
        peer = std::make_unique<TlsPeer>(context_);
        l.Complete(s.slot, net::Op::kConnect, 0);
        return;
      case net::Op::kSend:
        l.Complete(s.slot, net::Op::kSend, static_cast<int>(s.bytes.size()));
        if (peer == nullptr) return;
        if (Chance(0.02)) peer->stall = true;  // The request timeout ends what it holds.
        peer->Feed(s.bytes);
        if (due_[s.slot] <= l.Now()) due_[s.slot] = l.Now() + Upto(2 * kMs);
        return;
      default:
        return;
    }
  }

  void OnWait(net::FakeEventLoop& l) override {
    TimePassesAndStaleCompletionsArrive(l, std::string_view("\x17\x03\x03\x00\x01", 5));
    for (uint32_t slot = 0; slot < peers_.size(); ++slot) {
      std::unique_ptr<TlsPeer>& peer = peers_[slot];
      if (peer == nullptr || generations_[slot] != l.generation(slot)) continue;
      if (peer->to_client.empty() || due_[slot] > l.Now()) continue;
      double roll = Roll();
      if (roll < 0.004) {  // close_notify, then the TCP close.
        peer->Close();
        Deliver(l, slot, peer->to_client);
        l.Complete(slot, net::Op::kRecv, 0);
        peer.reset();
        continue;
      }
      if (roll < 0.008) {  // A close without close_notify.
        l.Complete(slot, net::Op::kRecv, 0);
        peer.reset();
        continue;
      }
      if (roll < 0.012) {
        l.Complete(slot, net::Op::kRecv, -ECONNRESET);
        peer.reset();
        continue;
      }
      if (roll < 0.014) {  // A forged application-data record: the client's TLS refuses it.
        Deliver(l, slot, std::string("\x17\x03\x03\x00\x05hello", 10));
        peer.reset();
        continue;
      }
      // Some of what is there, cut at any byte: records in pieces or together.
      std::string& out = peer->to_client;
      size_t cut = Cut(out.size(), 0.5);
      Deliver(l, slot, out.substr(0, cut));
      out.erase(0, cut);
    }
  }

  void Deliver(net::FakeEventLoop& l, uint32_t slot, std::string bytes) {
    if (!bytes.empty()) Receive(l, slot, std::move(bytes));
  }

  std::shared_ptr<net::TlsContext> context_;
  std::vector<std::unique_ptr<TlsPeer>> peers_;
  std::vector<int64_t> due_;
  std::array<uint32_t, 8> generations_{};
};

struct TlsSimulationResult {
  RunStats stats;
  uint64_t requests = 0;
};

TlsSimulationResult SimulateTls(uint64_t seed, std::shared_ptr<net::TlsContext> server) {
  std::mt19937_64 shape(seed ^ 0x715);
  RunOptions options = Options(300, std::vector<int64_t>{1, 2, 4}[shape() % 3]);
  options.url = "https://localhost:8443/{i}";
  options.insecure = true;  // The server's certificate is a fresh self-signed one.
  options.http1 = true;
  options.no_keepalive = shape() % 5 == 0;
  options.no_tls_resume = shape() % 2 == 0;
  Client client(options);
  SimulatedTlsServer peers(seed, static_cast<uint32_t>(options.concurrency), std::move(server));
  peers.Attach(client.loop());
  return {client.Run(), 300};
}

// 200 seeds; 60 under AddressSanitizer, where the handshakes make 200 take a minute (59 s).
#if defined(__SANITIZE_ADDRESS__)
constexpr uint64_t kSeeds = 60;
#else
constexpr uint64_t kSeeds = 200;
#endif

TEST(WorkerTlsSimulationTest, EveryStartedRequestEndsInExactlyOneOutcome) {
  std::shared_ptr<net::TlsContext> server = net::SelfSignedServerContext();
  ASSERT_NE(server, nullptr);
  test_support::SeedTotals totals = test_support::RunSeeds(kSeeds, [&](uint64_t seed) {
    TlsSimulationResult r = SimulateTls(seed, server);
    EXPECT_GT(r.stats.tls_handshakes, 0u);
    return r;
  });
  // The endings the simulation makes happened: one that never fails anything proves nothing.
  if (totals.many) {
    for (Outcome o : {Outcome::kOk, Outcome::kTimeout, Outcome::kConnectError, Outcome::kReset}) {
      EXPECT_GT(totals.outcomes[static_cast<size_t>(o)], 0u)
          << kOutcomeNames[static_cast<size_t>(o)];
    }
  }
}

}  // namespace
}  // namespace uringload::core
