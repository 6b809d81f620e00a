// Http3ClientSession against a real nghttp3 server in memory, the QUIC layer played by the
// test: stream bytes are handed over in order, acknowledged at once, and a stream closes when
// both its directions ended. Requests with and without bodies, rendered placeholders, the
// response's status and body, tags reused while a slot waits for its stream's close, a reset
// stream and a cancelled request.
#include "proto/http3_client_session.h"

#include <gtest/gtest.h>
#include <nghttp3/nghttp3.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "proto/testing/http3_test_server.h"

namespace uringload::proto {
namespace {

using testing::Http3TestServer;

constexpr uint64_t kH3NoError = 0x100;
constexpr uint64_t kH3RequestCancelled = 0x10c;

class Http3Recorder : public Http3ClientSession::Events {
 public:
  void OnStreamEnd(const StreamEnd& end) override { ends.push_back(end); }
  void OnStreamShutdown(int64_t id, uint64_t code) override { shutdowns.push_back({id, code}); }
  std::vector<StreamEnd> ends;
  std::vector<std::pair<int64_t, uint64_t>> shutdowns;
};

RequestTemplate Http3Template(const std::string& method, const std::string& target,
                              const std::string& body = "") {
  RequestSpec spec;
  spec.method = method;
  spec.scheme = "https";
  spec.target = target;
  spec.host_header = "example.test";
  spec.body = body;
  absl::StatusOr<RequestTemplate> t = RequestTemplate::Build(spec);
  EXPECT_TRUE(t.ok()) << t.status();
  return *std::move(t);
}

// The client, the server and the QUIC between them.
class Http3Pair {
 public:
  explicit Http3Pair(uint32_t streams) : client(streams) {
    EXPECT_TRUE(client.Start(&events, 2, 6, 10).ok());
  }

  // Moves every stream's bytes both ways until neither side has any to send.
  void Pump() {
    for (int round = 0; round < 100; ++round) {
      bool moved = false;
      for (;;) {  // Client to server, acknowledged at once.
        Http3Vec vecs[16];
        size_t count = 0;
        bool fin = false;
        int64_t id = client.NextStreamData(vecs, &count, &fin);
        if (id < 0) break;
        std::string bytes;
        for (size_t i = 0; i < count; ++i) {
          bytes.append(reinterpret_cast<const char*>(vecs[i].base), vecs[i].length);
        }
        client.Consumed(id, bytes.size());
        client_sent += bytes.size();
        ASSERT_GE(
            nghttp3_conn_read_stream(
                server.conn, id, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), fin),
            0);
        client.Acked(id, bytes.size());
        if (fin) Finished(id, &client_fin);
        moved = true;
      }
      for (;;) {  // Server to client.
        nghttp3_vec vecs[16];
        int64_t id = -1;
        int fin = 0;
        nghttp3_ssize n = nghttp3_conn_writev_stream(server.conn, &id, &fin, vecs, 16);
        ASSERT_GE(n, 0);
        if (id < 0) break;
        std::string bytes;
        for (nghttp3_ssize i = 0; i < n; ++i) {
          bytes.append(reinterpret_cast<const char*>(vecs[i].base), vecs[i].len);
        }
        nghttp3_conn_add_write_offset(server.conn, id, bytes.size());
        absl::Status received = client.Receive(
            id, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), fin != 0);
        ASSERT_TRUE(received.ok()) << received;
        nghttp3_conn_add_ack_offset(server.conn, id, bytes.size());
        if (fin != 0) Finished(id, &server_fin);
        moved = true;
      }
      if (!moved) return;
    }
    ADD_FAILURE() << "the streams never went quiet";
  }

  // QUIC closes a bidirectional stream once both directions ended.
  void Finished(int64_t id, std::set<int64_t>* side) {
    side->insert(id);
    if (hold_closes || id % 4 != 0 || client_fin.count(id) == 0 || server_fin.count(id) == 0)
      return;
    Close(id, kH3NoError);
  }
  void Close(int64_t id, uint64_t code) {
    EXPECT_TRUE(client.StreamClosed(id, code).ok());
    nghttp3_conn_close_stream(server.conn, id, code);
    closed.push_back(id);
  }

  Http3Recorder events;
  Http3ClientSession client;
  Http3TestServer server;
  std::set<int64_t> client_fin;
  std::set<int64_t> server_fin;
  std::vector<int64_t> closed;
  size_t client_sent = 0;
  bool hold_closes = false;  // The test closes streams itself.
};

TEST(Http3ClientSessionTest, RequestsWithAndWithoutBodiesGetTheirAnswers) {
  Http3Pair pair(2);
  RequestTemplate get = Http3Template("GET", "/items/{i}");
  RequestTemplate post = Http3Template("POST", "/up", "payload {i}");
  ASSERT_TRUE(pair.client.can_open());
  ASSERT_TRUE(pair.client.Submit(get, {.index = 7}, 0, 0).ok());
  ASSERT_TRUE(pair.client.Submit(post, {.index = 42}, 1, 4).ok());
  EXPECT_EQ(pair.client.open_requests(), 2u);
  pair.Pump();
  ASSERT_EQ(pair.events.ends.size(), 2u);
  for (const StreamEnd& end : pair.events.ends) {
    EXPECT_TRUE(end.complete);
    EXPECT_EQ(end.status, 200);
    EXPECT_EQ(end.error_code, kH3NoError);
  }
  EXPECT_EQ(pair.client.open_requests(), 0u);
  auto& get_seen = pair.server.requests[0];
  EXPECT_EQ(get_seen.fields[":method"], "GET");
  EXPECT_EQ(get_seen.fields[":scheme"], "https");
  EXPECT_EQ(get_seen.fields[":authority"], "example.test");
  EXPECT_EQ(get_seen.fields[":path"], "/items/7");
  EXPECT_EQ(get_seen.fields.count("content-length"), 0u);
  auto& post_seen = pair.server.requests[4];
  EXPECT_EQ(post_seen.fields[":path"], "/up");
  EXPECT_EQ(post_seen.body, "payload 42");
  EXPECT_EQ(post_seen.fields["content-length"], "10");
  EXPECT_EQ(pair.closed, (std::vector<int64_t>{0, 4}));
  // The tags again, on new streams: the slots were freed by the closes.
  ASSERT_TRUE(pair.client.Submit(get, {.index = 8}, 0, 8).ok());
  ASSERT_TRUE(pair.client.Submit(post, {.index = 43}, 1, 12).ok());
  pair.Pump();
  ASSERT_EQ(pair.events.ends.size(), 4u);
  EXPECT_EQ(pair.server.requests[8].fields[":path"], "/items/8");
  EXPECT_EQ(pair.server.requests[12].body, "payload 43");
}

TEST(Http3ClientSessionTest, TheBodyMatcherSeesTheResponse) {
  BodyMatcher found("to /a");
  BodyMatcher missing("nowhere");
  for (const BodyMatcher* matcher : {&found, &missing}) {
    Http3Pair pair(1);
    pair.client.SetBodyMatcher(matcher);
    ASSERT_TRUE(pair.client.Start(&pair.events, 2, 6, 10).ok());
    RequestTemplate get = Http3Template("GET", "/a");
    ASSERT_TRUE(pair.client.Submit(get, {}, 0, 0).ok());
    pair.Pump();
    ASSERT_EQ(pair.events.ends.size(), 1u);
    EXPECT_EQ(pair.events.ends[0].body_found, matcher == &found);
  }
}

TEST(Http3ClientSessionTest, AResponseEndsItsTagWhileItsSlotWaitsForTheClose) {
  Http3Pair pair(1);  // One request at a time, two slots.
  pair.hold_closes = true;
  RequestTemplate get = Http3Template("GET", "/x");
  ASSERT_TRUE(pair.client.Submit(get, {}, 0, 0).ok());
  pair.Pump();
  ASSERT_EQ(pair.events.ends.size(), 1u);  // The response is whole: the tag is free.
  EXPECT_EQ(pair.client.open_requests(), 0u);
  // Stream 0 is not closed yet (nghttp3 may still need its bytes): its slot stays taken, and
  // the tag's next request takes the other one.
  ASSERT_TRUE(pair.client.can_open());
  ASSERT_TRUE(pair.client.Submit(get, {}, 0, 4).ok());
  EXPECT_FALSE(pair.client.can_open());
  pair.Close(0, kH3NoError);
  EXPECT_TRUE(pair.client.can_open());
  EXPECT_EQ(pair.events.ends.size(), 1u);  // A close after the end reports nothing more.
  pair.Pump();
  ASSERT_EQ(pair.events.ends.size(), 2u);
  EXPECT_TRUE(pair.events.ends[1].complete);
}

TEST(Http3ClientSessionTest, AResetStreamEndsItsRequestWithTheCode) {
  Http3Pair pair(1);
  RequestTemplate get = Http3Template("GET", "/never");
  pair.server.silent.insert(0);
  ASSERT_TRUE(pair.client.Submit(get, {}, 0, 0).ok());
  pair.Pump();
  EXPECT_TRUE(pair.events.ends.empty());
  pair.Close(0, kH3RequestCancelled);  // The server reset it.
  ASSERT_EQ(pair.events.ends.size(), 1u);
  EXPECT_FALSE(pair.events.ends[0].complete);
  EXPECT_EQ(pair.events.ends[0].error_code, kH3RequestCancelled);
  EXPECT_EQ(pair.events.ends[0].status, 0);
  EXPECT_TRUE(pair.client.can_open());
}

TEST(Http3ClientSessionTest, ACancelledRequestIsNotReportedAndAsksForAReset) {
  Http3Pair pair(1);
  RequestTemplate get = Http3Template("GET", "/slow");
  pair.server.silent.insert(0);
  ASSERT_TRUE(pair.client.Submit(get, {}, 0, 0).ok());
  pair.Pump();
  pair.client.Cancel(0);
  EXPECT_EQ(pair.client.open_requests(), 0u);
  ASSERT_EQ(pair.events.shutdowns.size(), 1u);
  EXPECT_EQ(pair.events.shutdowns[0].first, 0);
  EXPECT_EQ(pair.events.shutdowns[0].second, kH3RequestCancelled);
  pair.Close(0, kH3RequestCancelled);  // QUIC reset the stream.
  EXPECT_TRUE(pair.events.ends.empty());
  EXPECT_TRUE(pair.client.can_open());
}

}  // namespace
}  // namespace uringload::proto
