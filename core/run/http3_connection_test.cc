// Http3Connection, the client's QUIC and HTTP/3 glued, against a server made of a QUIC
// connection and an nghttp3 server, back to back in memory on a clock the test moves: the
// handshake, HTTP/3's own streams, requests with and without bodies answered on their
// streams, more requests than the server allows streams at once, a connection the server
// breaks ending with the reason, a frame out of order closing it with its code, and 0-RTT.
#include "core/run/http3_connection.h"

#include <gtest/gtest.h>
#include <nghttp3/nghttp3.h>

#include <memory>
#include <string>
#include <vector>

#include "net/testing/quic_loopback.h"
#include "net/testing/self_signed_cert.h"
#include "proto/testing/http3_test_server.h"

namespace uringload::core {
namespace {

using net::testing::Bytes;
using net::testing::LoopbackPath;
using net::testing::TakeDatagrams;

// The server's side: QUIC's stream bytes to and from an nghttp3 server, whose control and
// QPACK streams (3, 7, 11) open once the handshake is done.
class Http3TestPeer : public net::QuicConnection::Events, public net::QuicConnection::StreamSource {
 public:
  void OnHandshakeCompleted() override {
    for (int64_t expected : {3, 7, 11}) EXPECT_EQ(quic->OpenUniStream(), expected);
    streams_open = true;
  }
  void OnStreamData(int64_t id, std::span<const uint8_t> data, bool fin) override {
    nghttp3_ssize n = nghttp3_conn_read_stream(h3.conn, id, data.data(), data.size(), fin);
    EXPECT_GE(n, 0) << nghttp3_strerror(static_cast<int>(n));
  }
  void OnStreamDataAcked(int64_t id, uint64_t, uint64_t length) override {
    nghttp3_conn_add_ack_offset(h3.conn, id, length);
  }
  void OnStreamClosed(int64_t id, uint64_t code) override {
    nghttp3_conn_close_stream(h3.conn, id, code);
  }
  int64_t NextStreamData(std::span<net::QuicVec> vecs, size_t* count, bool* fin) override {
    *count = 0;
    *fin = false;
    if (!streams_open) return -1;
    if (!raw_answer.empty() && h3.requests.count(0) > 0 && raw_sent < raw_answer.size()) {
      vecs[0] = {reinterpret_cast<const uint8_t*>(raw_answer.data()) + raw_sent,
                 raw_answer.size() - raw_sent};
      *count = 1;
      *fin = true;
      return 0;
    }
    int64_t id = -1;
    int end = 0;
    nghttp3_ssize n = nghttp3_conn_writev_stream(
        h3.conn, &id, &end, reinterpret_cast<nghttp3_vec*>(vecs.data()), vecs.size());
    EXPECT_GE(n, 0);
    *count = n > 0 ? static_cast<size_t>(n) : 0;
    *fin = end != 0;
    return id;
  }
  void Consumed(int64_t id, size_t bytes) override {
    if (id == 0 && !raw_answer.empty()) {
      raw_sent += bytes;
      return;
    }
    nghttp3_conn_add_write_offset(h3.conn, id, bytes);
  }
  void Blocked(int64_t id) override { nghttp3_conn_block_stream(h3.conn, id); }
  void Unblocked(int64_t id) override { nghttp3_conn_unblock_stream(h3.conn, id); }

  proto::testing::Http3TestServer h3;
  std::unique_ptr<net::QuicConnection> quic;
  bool streams_open = false;
  // Bytes that answer stream 0 instead of nghttp3's response, once its request came.
  std::string raw_answer;
  size_t raw_sent = 0;
};

class Recorder : public Http3Connection::Events {
 public:
  void OnReady() override { ready = true; }
  void OnStreamEnd(const proto::StreamEnd& end) override { ends.push_back(end); }
  void OnEarlyDataRejected() override { rejected = true; }
  bool ready = false;
  bool rejected = false;
  std::vector<proto::StreamEnd> ends;
};

proto::RequestTemplate H3Request(const std::string& method, const std::string& target,
                                 const std::string& body = "") {
  proto::RequestSpec spec;
  spec.method = method;
  spec.scheme = "https";
  spec.target = target;
  spec.host_header = "localhost";
  spec.body = body;
  absl::StatusOr<proto::RequestTemplate> t = proto::RequestTemplate::Build(spec);
  EXPECT_TRUE(t.ok()) << t.status();
  return *std::move(t);
}

class Http3Pair {
 public:
  // The client checks the server's certificate for `server_name`.
  explicit Http3Pair(uint32_t streams, net::QuicSettings server_settings = {},
                     std::string server_name = "localhost")
      : client(streams), server_settings_(server_settings) {
    EXPECT_TRUE(client_tls_.ok() && server_tls_.ok());
    absl::Status started = client.Start(**client_tls_, LoopbackPath(40000, 443),
                                        std::move(server_name), {}, &events, now_ns);
    EXPECT_TRUE(started.ok()) << started;
  }

  // As QuicPair in net/quic_connection_test.cc: 0.5 ms each way, expiries handled before
  // writes, a quiet round jumps to the next expiry within a second.
  void Exchange(int rounds) {
    for (int i = 0; i < rounds; ++i) {
      bool moved = false;
      now_ns += 500'000;
      if (client.expiry_ns() <= now_ns) client.HandleExpiry(now_ns);
      for (const std::string& d : TakeDatagrams(client, now_ns)) {
        moved = true;
        if (peer_->quic == nullptr) {
          absl::StatusOr<std::unique_ptr<net::QuicConnection>> s =
              net::QuicConnection::Accept(**server_tls_, LoopbackPath(443, 40000), Bytes(d),
                                          server_settings_, peer_.get(), now_ns);
          ASSERT_TRUE(s.ok()) << s.status();
          peer_->quic = *std::move(s);
          peer_->quic->set_source(peer_.get());
          continue;
        }
        peer_->quic->Receive(Bytes(d), now_ns);
      }
      if (peer_->quic == nullptr) continue;
      now_ns += 500'000;
      if (peer_->quic->expiry_ns() <= now_ns) peer_->quic->HandleExpiry(now_ns);
      for (const std::string& d : TakeDatagrams(*peer_->quic, now_ns)) {
        moved = true;
        client.Receive(Bytes(d), now_ns);
      }
      if (!moved) {
        int64_t next = std::min(client.expiry_ns(), peer_->quic->expiry_ns());
        if (next > now_ns && next - now_ns < 1'000'000'000) now_ns = next - 500'000;
      }
    }
  }

  net::SelfSignedPem pem_{"DNS:localhost"};
  absl::StatusOr<std::unique_ptr<net::QuicTlsContext>> client_tls_ =
      net::QuicTlsContext::Client({.verify = true, .ca_file = pem_.cert_file()});
  absl::StatusOr<std::unique_ptr<net::QuicTlsContext>> server_tls_ =
      net::QuicTlsContext::Server({.cert_file = pem_.cert_file(), .key_file = pem_.key_file()});
  int64_t now_ns = 1'000'000'000;
  Recorder events;
  Http3Connection client;
  net::QuicSettings server_settings_;
  std::unique_ptr<Http3TestPeer> peer_ = std::make_unique<Http3TestPeer>();
  Http3TestPeer& peer() { return *peer_; }

  // The client connects again to a new server connection, resuming `ticket` with `early`
  // transport parameters (0-RTT). `new_key`: the server restarted (another ticket key).
  void Reconnect(std::span<const uint8_t> ticket, std::span<const uint8_t> early, bool new_key) {
    if (new_key) {
      server_tls_ =
          net::QuicTlsContext::Server({.cert_file = pem_.cert_file(), .key_file = pem_.key_file()});
    }
    peer_ = std::make_unique<Http3TestPeer>();
    client.Stop();
    events = Recorder();
    absl::Status started = client.Start(**client_tls_, LoopbackPath(40001, 443), "localhost", {},
                                        &events, now_ns, ticket, early);
    EXPECT_TRUE(started.ok()) << started;
  }
};

TEST(Http3ConnectionTest, RequestsGoOutOnceHttp3IsUpAndAreAnswered) {
  Http3Pair pair(4);
  EXPECT_FALSE(pair.client.can_open());  // Not before the handshake.
  pair.Exchange(10);
  ASSERT_TRUE(pair.events.ready);
  ASSERT_TRUE(pair.client.can_open());
  proto::RequestTemplate get = H3Request("GET", "/items/{i}");
  proto::RequestTemplate post = H3Request("POST", "/up", std::string(50'000, 'b'));
  ASSERT_TRUE(pair.client.Submit(get, {.index = 1}, 0).ok());
  ASSERT_TRUE(pair.client.Submit(post, {.index = 2}, 1).ok());
  EXPECT_EQ(pair.client.open_requests(), 2u);
  pair.Exchange(30);
  ASSERT_EQ(pair.events.ends.size(), 2u);
  for (const proto::StreamEnd& end : pair.events.ends) {
    EXPECT_TRUE(end.complete);
    EXPECT_EQ(end.status, 200);
  }
  EXPECT_EQ(pair.peer().h3.requests[0].fields[":path"], "/items/1");
  EXPECT_EQ(pair.peer().h3.requests[4].body.size(), 50'000u);  // Many packets, in order.
  EXPECT_EQ(pair.peer().h3.requests[4].fields["content-length"], "50000");
  EXPECT_EQ(pair.client.end(), net::QuicEnd::kOpen);
}

TEST(Http3ConnectionTest, MoreRequestsThanTheServerAllowsStreamsWaitForIt) {
  Http3Pair pair(8, {.max_streams_bidi = 2});
  pair.Exchange(10);
  ASSERT_TRUE(pair.events.ready);
  proto::RequestTemplate get = H3Request("GET", "/s/{i}");
  uint32_t submitted = 0;
  while (pair.client.can_open() && submitted < 8) {
    absl::Status s = pair.client.Submit(get, {.index = submitted}, submitted);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
      break;
    }
    ++submitted;
  }
  EXPECT_EQ(submitted, 2u);  // The server's limit.
  pair.Exchange(20);
  EXPECT_EQ(pair.events.ends.size(), 2u);
  // The ended streams' credit comes back (MAX_STREAMS): two more go out.
  ASSERT_TRUE(pair.client.Submit(get, {.index = 2}, 2).ok());
  ASSERT_TRUE(pair.client.Submit(get, {.index = 3}, 3).ok());
  pair.Exchange(20);
  EXPECT_EQ(pair.events.ends.size(), 4u);
  EXPECT_EQ(pair.peer().h3.requests[12].fields[":path"], "/s/3");
}

TEST(Http3ConnectionTest, ACertificateForAnotherNameEndsTheConnectionSayingWhy) {
  Http3Pair pair(1, {}, "example.com");
  pair.Exchange(10);
  EXPECT_FALSE(pair.events.ready);
  EXPECT_FALSE(pair.client.can_open());
  EXPECT_EQ(pair.client.end(), net::QuicEnd::kError);
  EXPECT_NE(pair.client.end_reason().find("TLS alert"), std::string::npos)
      << pair.client.end_reason();
}

// A DATA frame before any HEADERS on a request stream breaks HTTP/3 (RFC 9114 4.1): the
// client closes the connection with H3_FRAME_UNEXPECTED; that request is not reported
// answered (the worker counts the requests left on it parse_error: http3_failed()).
TEST(Http3ConnectionTest, AFrameOutOfOrderBreaksHttp3AndClosesWithItsCode) {
  Http3Pair pair(2);
  pair.Exchange(10);
  ASSERT_TRUE(pair.events.ready);
  pair.peer().raw_answer = std::string("\x00\x02ok", 4);  // DATA, 2 bytes: "ok".
  proto::RequestTemplate get = H3Request("GET", "/m/{i}");
  ASSERT_TRUE(pair.client.Submit(get, {.index = 0}, 0).ok());
  ASSERT_TRUE(pair.client.Submit(get, {.index = 1}, 1).ok());
  pair.Exchange(10);
  EXPECT_EQ(pair.peer().raw_sent, 4u);
  EXPECT_TRUE(pair.client.http3_failed());
  EXPECT_EQ(pair.client.end(), net::QuicEnd::kError);
  for (const proto::StreamEnd& end : pair.events.ends) {
    EXPECT_FALSE(end.tag == 0 && end.complete);  // The other request may have its answer.
  }
  ASSERT_NE(pair.peer().quic, nullptr);
  EXPECT_EQ(pair.peer().quic->end(), net::QuicEnd::kClosedByPeer);
  EXPECT_TRUE(pair.peer().quic->peer_error_is_application());
  EXPECT_EQ(pair.peer().quic->peer_error_code(), 0x105u);  // H3_FRAME_UNEXPECTED.
}

// 0-RTT: a reconnect with the last connection's session and transport parameters is ready at
// once and its request goes before the handshake ends; the server takes it. A restarted server
// (another ticket key) cannot resume the session and drops the early request: the client
// hears so when the handshake ends, HTTP/3 starts over and the request, sent again, is
// answered. Each server sees the request once.
TEST(Http3ConnectionTest, ZeroRttRequestsAreTakenOrRefusedAndSentAgain) {
  Http3Pair pair(2);
  pair.Exchange(10);
  ASSERT_TRUE(pair.events.ready);
  proto::RequestTemplate get = H3Request("GET", "/z/{i}");
  ASSERT_TRUE(pair.client.Submit(get, {.index = 0}, 0).ok());
  pair.Exchange(10);
  ASSERT_EQ(pair.events.ends.size(), 1u);
  std::vector<uint8_t> ticket, early;
  ASSERT_TRUE(pair.client.TakeSessionTicket(&ticket));
  ASSERT_TRUE(pair.client.TakeEarlyParams(&early));

  for (bool restarted : {false, true}) {
    pair.Reconnect(ticket, early, restarted);
    ASSERT_TRUE(pair.events.ready) << restarted;  // Before any packet.
    ASSERT_TRUE(pair.client.quic().early_data_attempted());
    ASSERT_TRUE(pair.client.Submit(get, {.index = 1}, 0).ok());
    pair.Exchange(10);
    EXPECT_EQ(pair.client.quic().early_data_accepted(), !restarted);
    EXPECT_EQ(pair.events.rejected, restarted);
    if (restarted) {  // What the worker does: the request again, same tag.
      EXPECT_TRUE(pair.events.ends.empty());
      ASSERT_TRUE(pair.client.Submit(get, {.index = 1}, 0).ok());
      pair.Exchange(10);
    }
    ASSERT_EQ(pair.events.ends.size(), 1u) << restarted;
    EXPECT_TRUE(pair.events.ends[0].complete);
    EXPECT_EQ(pair.events.ends[0].status, 200);
    EXPECT_EQ(pair.peer().h3.requests.size(), 1u) << restarted;
    EXPECT_TRUE(pair.client.quic().tls_resumed() == !restarted);
  }
}

}  // namespace
}  // namespace uringload::core
