// QuicConnection, a client and a server wired back to back in memory on a clock the test
// moves: real ngtcp2 and GnuTLS handshakes, packets in runs of equal size (what one GSO send
// carries), stream data both ways with its FIN, certificate verification and -k, and the
// idle timeout on the expiry the caller keeps, the packets a side declared lost, and a
// stateless reset.
#include "net/quic_connection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <memory>
#include <string>
#include <vector>

#include "net/testing/quic_loopback.h"
#include "net/testing/self_signed_cert.h"

namespace uringload::net {
namespace {

using testing::Bytes;
using testing::LoopbackPath;
using testing::TakeDatagrams;

// What a connection saw, and one stream's bytes to send (with a FIN).
class Endpoint : public QuicConnection::Events, public QuicConnection::StreamSource {
 public:
  void OnHandshakeCompleted() override { handshake_completed = true; }
  void OnStreamData(int64_t id, std::span<const uint8_t> data, bool fin) override {
    received_on = id;
    received.append(reinterpret_cast<const char*>(data.data()), data.size());
    received_fin |= fin;
  }
  void OnStreamClosed(int64_t id, uint64_t /*code*/) override { closed.push_back(id); }

  int64_t NextStreamData(std::span<QuicVec> vecs, size_t* count, bool* fin) override {
    *count = 0;
    *fin = false;
    if (send_on < 0 || fin_sent) return -1;
    if (sent < to_send.size()) {
      vecs[0] = {reinterpret_cast<const uint8_t*>(to_send.data()) + sent, to_send.size() - sent};
      *count = 1;
    }
    *fin = true;
    return send_on;
  }
  void Consumed(int64_t /*id*/, size_t bytes) override {
    sent += bytes;
    if (sent == to_send.size()) fin_sent = true;  // The FIN goes with the last bytes.
  }
  void Blocked(int64_t /*id*/) override { ++blocked; }

  void Send(int64_t id, std::string data) {
    send_on = id;
    to_send = std::move(data);
    sent = 0;
    fin_sent = false;
  }

  bool handshake_completed = false;
  int64_t received_on = -1;
  std::string received;
  bool received_fin = false;
  std::vector<int64_t> closed;
  int64_t send_on = -1;
  std::string to_send;
  size_t sent = 0;
  bool fin_sent = false;
  int blocked = 0;
};

class QuicPair {
 public:
  // `verify`: the client trusts the server's own certificate and checks `server_name`
  // against it; otherwise -k.
  QuicPair(bool verify, std::string server_name)
      : client_tls_(QuicTlsContext::Client({.verify = verify, .ca_file = pem_.cert_file()})),
        server_tls_(
            QuicTlsContext::Server({.cert_file = pem_.cert_file(), .key_file = pem_.key_file()})) {
    EXPECT_TRUE(client_tls_.ok()) << client_tls_.status();
    EXPECT_TRUE(server_tls_.ok()) << server_tls_.status();
    absl::StatusOr<std::unique_ptr<QuicConnection>> c =
        QuicConnection::Client(**client_tls_, LoopbackPath(40000, 443), std::move(server_name), {},
                               &client_events, now_ns);
    EXPECT_TRUE(c.ok()) << c.status();
    if (c.ok()) client = *std::move(c);
    if (client != nullptr) client->set_source(&client_events);
  }

  // Moves what each side has to send to the other, `rounds` times, as the event loop would:
  // the server answers 0.5 ms after the client wrote, so round trips are real ones (ngtcp2
  // paces its packets by the RTT it measures), and a side whose expiry has come handles it
  // before it writes. A round in which nothing moved jumps the clock to the next expiry within
  // a second (not to an idle timeout). The server connection is made from the client's first
  // datagram.
  void Exchange(int rounds) {
    for (int i = 0; i < rounds; ++i) {
      bool moved = false;
      Advance(500'000, client.get());
      for (const std::string& d : TakeDatagrams(*client, now_ns)) {
        moved = true;
        ++client_datagrams;
        if (drop_every > 0 && client_datagrams % drop_every == 0) continue;  // Lost on the way.
        if (server == nullptr) {
          absl::StatusOr<std::unique_ptr<QuicConnection>> s = QuicConnection::Accept(
              **server_tls_, LoopbackPath(443, 40000), Bytes(d), {}, &server_events, now_ns);
          ASSERT_TRUE(s.ok()) << s.status();
          server = *std::move(s);
          server->set_source(&server_events);
          continue;
        }
        if (!server->Receive(Bytes(d), now_ns) && !failure_expected) {
          ADD_FAILURE() << "server: " << server->end_reason();
        }
      }
      if (server == nullptr) continue;
      Advance(500'000, server.get());
      for (const std::string& d : TakeDatagrams(*server, now_ns)) {
        moved = true;
        if (!client->Receive(Bytes(d), now_ns) && !failure_expected) {
          ADD_FAILURE() << "client: " << client->end_reason();
        }
      }
      if (!moved) {
        int64_t next = std::min(client->expiry_ns(), server->expiry_ns());
        if (next > now_ns && next - now_ns < 1'000'000'000) now_ns = next - 500'000;
      }
    }
  }

  // Moves the clock by `ns` and lets `side` handle its expiry if it has come.
  void Advance(int64_t ns, QuicConnection* side) {
    now_ns += ns;
    if (side->expiry_ns() <= now_ns) side->HandleExpiry(now_ns);
  }

  SelfSignedPem pem_{"DNS:localhost"};
  absl::StatusOr<std::unique_ptr<QuicTlsContext>> client_tls_;
  absl::StatusOr<std::unique_ptr<QuicTlsContext>> server_tls_;
  int64_t now_ns = 1'000'000'000;
  Endpoint client_events;
  Endpoint server_events;
  std::unique_ptr<QuicConnection> client;
  std::unique_ptr<QuicConnection> server;
  int client_datagrams = 0;
  int drop_every = 0;             // Every Nth datagram of the client's is lost (0: none).
  bool failure_expected = false;  // A side's Receive may fail (the test checks how).
};

TEST(QuicConnectionTest, HandshakeThenAStreamEachWayWithItsFin) {
  QuicPair pair(false, "localhost");
  ASSERT_NE(pair.client, nullptr);
  EXPECT_EQ(pair.client->OpenStream(), -1);  // No stream before the peer's limits are known.
  pair.Exchange(5);
  ASSERT_NE(pair.server, nullptr);
  EXPECT_TRUE(pair.client->handshake_completed());
  EXPECT_TRUE(pair.server->handshake_completed());
  EXPECT_TRUE(pair.client_events.handshake_completed);
  EXPECT_TRUE(pair.server_events.handshake_completed);

  int64_t id = pair.client->OpenStream();
  ASSERT_EQ(id, 0);  // A client's first bidirectional stream.
  // 100 KB: many packets, so the runs of equal-size datagrams are exercised.
  std::string request(100'000, 'q');
  for (size_t i = 0; i < request.size(); i += 97) request[i] = 'a' + i % 26;
  pair.client_events.Send(id, request);
  pair.Exchange(20);
  EXPECT_EQ(pair.server_events.received_on, id);
  EXPECT_TRUE(pair.server_events.received == request);
  EXPECT_TRUE(pair.server_events.received_fin);

  pair.server_events.Send(id, "world");
  pair.Exchange(5);
  EXPECT_EQ(pair.client_events.received, "world");
  EXPECT_TRUE(pair.client_events.received_fin);
  // Both directions ended and were acknowledged: the stream is closed on both sides.
  EXPECT_EQ(pair.client_events.closed, std::vector<int64_t>{id});
  EXPECT_EQ(pair.server_events.closed, std::vector<int64_t>{id});
  EXPECT_EQ(pair.client->end(), QuicEnd::kOpen);
  EXPECT_EQ(pair.server->end(), QuicEnd::kOpen);
}

TEST(QuicConnectionTest, TheCertificateIsVerifiedUnlessTold) {
  {
    QuicPair pair(true, "localhost");  // Trusted, and the name it carries.
    pair.Exchange(5);
    EXPECT_TRUE(pair.client->handshake_completed()) << pair.client->end_reason();
  }
  {
    QuicPair pair(true, "example.com");  // Trusted, but another name: it fails, saying why.
    pair.failure_expected = true;
    pair.Exchange(5);
    EXPECT_FALSE(pair.client->handshake_completed());
    EXPECT_EQ(pair.client->end(), QuicEnd::kError);
    EXPECT_NE(pair.client->end_reason().find("TLS alert"), std::string::npos)
        << pair.client->end_reason();
  }
  {
    QuicPair pair(false, "example.com");  // The wrong name with -k: it completes.
    pair.Exchange(5);
    EXPECT_TRUE(pair.client->handshake_completed()) << pair.client->end_reason();
  }
}

TEST(QuicConnectionTest, ASilentPeerIsAnIdleTimeoutOnTheExpiry) {
  QuicPair pair(false, "localhost");
  pair.Exchange(5);
  ASSERT_TRUE(pair.client->handshake_completed());
  // The server goes silent: the client's expiries pass until its idle timeout (30 s).
  int64_t now = pair.now_ns;
  int expiries = 0;
  while (pair.client->end() == QuicEnd::kOpen && expiries < 1000) {
    now = std::max(now, pair.client->expiry_ns());
    pair.client->HandleExpiry(now);
    TakeDatagrams(*pair.client, now);  // Probes nobody answers.
    ++expiries;
  }
  EXPECT_EQ(pair.client->end(), QuicEnd::kIdleTimeout) << pair.client->end_reason();
  EXPECT_GE(now - pair.now_ns, 29'000'000'000);
  EXPECT_LE(now - pair.now_ns, 31'000'000'000);
}

// A server that forgets the connection sends no CONNECTION_CLOSE but a stateless reset, which
// the client knows by the token the server gave in the handshake: the connection ends as
// kStatelessReset. The same datagram with another token is noise, and the client ignores it.
TEST(QuicConnectionTest, AStatelessResetEndsTheClientsConnectionByItsTokenOnly) {
  QuicPair pair(false, "localhost");
  pair.Exchange(5);
  ASSERT_TRUE(pair.client->handshake_completed());
  pair.server->Forget("forgotten");
  std::vector<std::string> reset = TakeDatagrams(*pair.server, pair.now_ns);
  ASSERT_EQ(reset.size(), 1u);
  EXPECT_TRUE(TakeDatagrams(*pair.server, pair.now_ns).empty());  // Once.
  EXPECT_EQ(pair.server->end(), QuicEnd::kError);

  std::string wrong_token = reset[0];
  wrong_token.back() ^= 1;
  EXPECT_TRUE(pair.client->Receive(Bytes(wrong_token), pair.now_ns));
  EXPECT_EQ(pair.client->end(), QuicEnd::kOpen);

  EXPECT_FALSE(pair.client->Receive(Bytes(reset[0]), pair.now_ns));
  EXPECT_EQ(pair.client->end(), QuicEnd::kStatelessReset);
  EXPECT_EQ(pair.client->end_reason(), "stateless reset");
}

// A tenth of the client's datagrams lost: the server still receives every byte, and the
// client counts the packets it declared lost; without loss it counts none.
TEST(QuicConnectionTest, LostPacketsAreCountedAndTheirDataArrives) {
  for (int drop_every : {0, 10}) {
    QuicPair pair(false, "localhost");
    pair.Exchange(5);
    ASSERT_TRUE(pair.client->handshake_completed());
    pair.drop_every = drop_every;
    int64_t id = pair.client->OpenStream();
    std::string request(200'000, 'l');
    pair.client_events.Send(id, request);
    pair.Exchange(200);
    EXPECT_TRUE(pair.server_events.received == request) << drop_every;
    EXPECT_TRUE(pair.server_events.received_fin) << drop_every;
    if (drop_every == 0) {
      EXPECT_EQ(pair.client->packets_lost(), 0u);
    } else {
      // Not every dropped datagram is declared lost (an ACK can come first for a later one
      // and the dropped one is then lost too, or a probe's loss goes unnoticed at the end).
      EXPECT_GT(pair.client->packets_lost(), 0u);
      EXPECT_LE(pair.client->packets_lost(), static_cast<uint64_t>(pair.client_datagrams / 10));
    }
  }
}

}  // namespace
}  // namespace uringload::net
