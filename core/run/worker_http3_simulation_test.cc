// A seeded simulation of the HTTP/3 client, as worker_http2_simulation_test.cc is of HTTP/2:
// one Worker over the fake loop, each connection's UDP slot against serve's in-memory QUIC and
// HTTP/3 server (Http3ServerConnection), every decision from a PRNG seeded per run: connects
// refused or never answered, datagrams lost, duplicated and delayed (so reordered) both ways,
// requests answered after a delay, reset (H3_REQUEST_REJECTED among them, which the client
// sends again), answered with a malformed response or never answered, connections aborted
// (CONNECTION_CLOSE) or forgotten (a stateless reset), sends refused by ICMP, and completions
// of closed incarnations. At the end every started request has exactly one outcome, and no
// URINGLOAD_CHECK fired on the way. A failing seed is printed; URINGLOAD_SIM_SEED=N replays it.
#include <gtest/gtest.h>
#include <nghttp3/nghttp3.h>

#include <array>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/serve/http3_server_connection.h"
#include "core/testing/simulated_peers.h"
#include "core/testing/simulation_seeds.h"
#include "core/testing/worker_test_client.h"
#include "net/testing/quic_loopback.h"
#include "net/testing/seeds.h"
#include "net/testing/self_signed_cert.h"

namespace uringload::core {
namespace {

using test_support::Client;
using test_support::kMs;
using test_support::Options;

// The bodies the server answers with (a prefix of it): nghttp3 reads a body until QUIC has it
// acknowledged, so it outlives every connection.
std::string_view Body(size_t size) {
  static const std::string body(3000, 'b');
  return std::string_view(body).substr(0, size);
}

// The server side of every connection, as the fake loop's scripted peer.
class SimulatedHttp3Server : public test_support::SimulatedPeers {
 public:
  SimulatedHttp3Server(uint64_t seed, uint32_t slots, const net::QuicTlsContext* tls)
      : SimulatedPeers(seed, slots), tls_(tls), peers_(slots) {
    for (Peer& peer : peers_) peer.sim = this;
  }

  uint64_t rejected() const { return rejected_; }

 private:
  enum class Kind { kAnswer, kStall, kReject, kReset, kMalformed, kPartial, kAbort, kForget };
  struct Answer {
    int64_t due_ns = 0;
    int64_t stream_id = 0;
    uint32_t handle = 0;
    Kind kind = Kind::kAnswer;
  };
  struct Datagram {
    int64_t due_ns = 0;
    std::string bytes;
  };
  struct Peer final : Http3ServerConnection::Events {
    void OnRequest(const proto::Http3ServerSession::Request& request) override {
      sim->Decide(*this, request);
    }
    SimulatedHttp3Server* sim = nullptr;
    uint32_t generation = 0;
    bool connected = false;
    std::unique_ptr<Http3ServerConnection> server;
    std::vector<Answer> answers;
    std::vector<Datagram> to_client;  // In flight: each arrives at its due time.
  };

  void Decide(Peer& peer, const proto::Http3ServerSession::Request& request) {
    Answer a{
        .due_ns = now_ + Upto(3 * kMs), .stream_id = request.stream_id, .handle = request.handle};
    double roll = Roll();
    if (roll < 0.02) {
      a.kind = Kind::kStall;  // The request timeout ends it.
    } else if (roll < 0.04) {
      a.kind = Kind::kReject;  // Unprocessed: the client sends it again (once).
      ++rejected_;
    } else if (roll < 0.06) {
      a.kind = Kind::kReset;
    } else if (roll < 0.07) {
      a.kind = Kind::kMalformed;
    } else if (roll < 0.08) {
      a.kind = Kind::kPartial;
    } else if (roll < 0.085) {
      a.kind = Kind::kAbort;
    } else if (roll < 0.09) {
      a.kind = Kind::kForget;
    }
    peer.answers.push_back(a);
  }

  void OnSubmit(net::FakeEventLoop& l, const net::FakeEventLoop::Submitted& s) override {
    now_ = l.Now();
    Peer& peer = peers_[s.slot];
    switch (s.op) {
      case net::Op::kConnect:
        peer.generation = l.generation(s.slot);
        peer.connected = false;
        peer.server.reset();
        peer.answers.clear();
        peer.to_client.clear();
        if (Chance(0.03)) {
          l.Complete(s.slot, net::Op::kConnect, -ECONNREFUSED);
          return;
        }
        if (Chance(0.01)) return;  // Never answered: the connect timeout ends it.
        peer.connected = true;
        l.Complete(s.slot, net::Op::kConnect, 0);
        return;
      case net::Op::kSend: {
        if (Chance(0.005)) {  // ICMP said the port is closed.
          l.Complete(s.slot, net::Op::kSend, -ECONNREFUSED);
          return;
        }
        l.Complete(s.slot, net::Op::kSend, static_cast<int>(s.bytes.size()));
        if (!peer.connected) return;
        for (size_t at = 0; at < s.bytes.size(); at += s.datagram_size) {
          if (Chance(0.03)) continue;  // Lost on the way to the server.
          std::string datagram = s.bytes.substr(at, s.datagram_size);
          ToServer(peer, net::testing::Bytes(datagram));
        }
        Flush(peer);
        return;
      }
      default:
        return;
    }
  }

  void ToServer(Peer& peer, std::span<const uint8_t> datagram) {
    if (peer.server == nullptr) {
      peer.server = std::make_unique<Http3ServerConnection>();
      absl::Status accepted = peer.server->Accept(*tls_, net::testing::LoopbackPath(8443, 40001),
                                                  datagram, net::QuicSettings{}, &peer, now_);
      if (!accepted.ok()) peer.server.reset();  // Not an Initial (its Initial was lost).
      return;
    }
    if (peer.server->end() == net::QuicEnd::kOpen) peer.server->Receive(datagram, now_);
  }

  // What the server has to send goes on its way, each datagram with its own delay; now and
  // then one is lost or arrives twice.
  void Flush(Peer& peer) {
    if (peer.server == nullptr) return;
    for (const std::string& d : net::testing::TakeDatagrams(*peer.server, now_)) {
      if (Chance(0.03)) continue;
      int copies = Chance(0.01) ? 2 : 1;
      for (int k = 0; k < copies; ++k) peer.to_client.push_back({now_ + Upto(2 * kMs), d});
    }
  }

  void Respond(Peer& peer, const Answer& a) {
    proto::Http3ServerSession& session = peer.server->session();
    std::string_view body = Body(static_cast<size_t>(Upto(3000)));
    switch (a.kind) {
      case Kind::kStall:
        return;
      case Kind::kReject:
        session.Reset(a.stream_id, a.handle, NGHTTP3_H3_REQUEST_REJECTED);
        return;
      case Kind::kReset:
        session.Reset(a.stream_id, a.handle, NGHTTP3_H3_INTERNAL_ERROR);
        return;
      case Kind::kMalformed:
        if (!session.RespondMalformed(a.stream_id, a.handle).ok()) peer.server->Abort();
        return;
      case Kind::kAbort:
        peer.server->Abort();
        return;
      case Kind::kForget:
        peer.server->Forget();
        return;
      case Kind::kAnswer:
      case Kind::kPartial:
        if (!session.Respond(a.stream_id, a.handle, 200, body, false, a.kind == Kind::kPartial)
                 .ok()) {
          peer.server->Abort();
        }
        return;
    }
  }

  void OnWait(net::FakeEventLoop& l) override {
    TimePassesAndStaleCompletionsArrive(l, std::string(40, 'x'));
    now_ = l.Now();
    for (uint32_t slot = 0; slot < peers_.size(); ++slot) {
      Peer& peer = peers_[slot];
      if (peer.generation != l.generation(slot) || !peer.connected) continue;
      if (peer.server != nullptr && peer.server->end() == net::QuicEnd::kOpen) {
        if (peer.server->expiry_ns() <= now_) peer.server->HandleExpiry(now_);
        peer.server->session().CutPartialAnswers();
        for (size_t i = 0; i < peer.answers.size() && peer.server->end() == net::QuicEnd::kOpen;) {
          if (peer.answers[i].due_ns > now_) {
            ++i;
            continue;
          }
          Answer a = peer.answers[i];
          peer.answers.erase(peer.answers.begin() + static_cast<ptrdiff_t>(i));
          Respond(peer, a);
        }
        Flush(peer);
      }
      if (!l.receiving(slot)) continue;
      for (size_t i = 0; i < peer.to_client.size();) {
        if (peer.to_client[i].due_ns > now_) {
          ++i;
          continue;
        }
        std::string bytes = std::move(peer.to_client[i].bytes);
        peer.to_client.erase(peer.to_client.begin() + static_cast<ptrdiff_t>(i));
        auto size = static_cast<uint32_t>(bytes.size());
        l.CompleteDatagrams(slot, std::move(bytes), size);
      }
    }
  }

  const net::QuicTlsContext* tls_;
  std::vector<Peer> peers_;
  int64_t now_ = 0;
  uint64_t rejected_ = 0;
};

struct Http3SimulationResult {
  RunStats stats;
  uint64_t requests = 0;
  uint64_t rejected = 0;
};

Http3SimulationResult SimulateHttp3(uint64_t seed) {
  static net::SelfSignedPem pem{"DNS:localhost"};
  static std::unique_ptr<net::QuicTlsContext> tls =
      *net::QuicTlsContext::Server({.cert_file = pem.cert_file(), .key_file = pem.key_file()});
  std::mt19937_64 shape(seed ^ 0x5eed3);
  constexpr int64_t kRequests = 300;
  RunOptions options = Options(kRequests, std::vector<int64_t>{1, 2, 4}[shape() % 3]);
  options.url = "https://127.0.0.1:8443/{i}";
  options.http3 = true;
  options.insecure = true;  // The server's certificate is a fresh self-signed one.
  options.pipeline = std::vector<int64_t>{1, 4, 16}[shape() % 3];
  options.timeout = "200ms";
  options.connect_timeout = "100ms";
  if (shape() % 4 == 0) options.rate = "5000";  // The open model.
  if (options.pipeline == 1 && shape() % 4 == 0) options.no_keepalive = true;
  if (shape() % 3 == 0) options.zero_rtt = true;
  Client client(options);
  SimulatedHttp3Server server(seed, static_cast<uint32_t>(options.concurrency), tls.get());
  server.Attach(client.loop());
  RunStats stats = client.Run();
  return {stats, kRequests, server.rejected()};
}

TEST(WorkerHttp3SimulationTest, EveryStartedRequestEndsInExactlyOneOutcome) {
  test_support::SeedTotals totals = test_support::RunSeeds(200, SimulateHttp3);
  // Every kind of ending happened but check_failed (no checks here), and rejected requests
  // were sent again: a simulation that never fails anything proves nothing.
  if (totals.many) {
    for (size_t k = 0; k < kOutcomeCount; ++k) {
      if (static_cast<Outcome>(k) == Outcome::kCheckFailed) continue;
      EXPECT_GT(totals.outcomes[k], 0u) << "outcome " << k;
    }
    EXPECT_GT(totals.retried, 0u);
  }
}

// The same seed gives the same run, so a failing seed replays.
TEST(WorkerHttp3SimulationTest, ASeedReplaysExactly) {
  Http3SimulationResult a = SimulateHttp3(7);
  Http3SimulationResult b = SimulateHttp3(7);
  EXPECT_EQ(a.stats.outcomes, b.stats.outcomes);
  EXPECT_EQ(a.stats.causes, b.stats.causes);
  EXPECT_EQ(a.stats.retried, b.stats.retried);
}

}  // namespace
}  // namespace uringload::core
