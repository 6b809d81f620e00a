#include "proto/http2_server_session.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/http2_client_session.h"

namespace uringload::proto {
namespace {

// A client session and a server session joined in memory: what one sends, the other receives.
class Pair : public Http2ClientSession::Events, public Http2ServerSession::Events {
 public:
  explicit Pair(Http2ServerSession::Settings settings = {}) : client(8) {
    EXPECT_TRUE(client.Start(this).ok());
    EXPECT_TRUE(server.Start(this, settings).ok());
    RequestSpec spec;
    spec.target = "/item/{i}";
    spec.host_header = "example.test";
    request = *RequestTemplate::Build(spec);
  }
  void OnStreamEnd(const StreamEnd& end) override { ends.push_back(end); }
  void OnRequest(const Http2ServerSession::Request& r) override {
    requests.push_back({r.stream_id, std::string(r.echo)});
  }
  // Moves bytes both ways until neither side has any.
  void Pump() {
    for (int round = 0; round < 100; ++round) {
      std::string to_server, to_client;
      for (std::string_view out; !(out = client.Output()).empty();) {
        to_server.append(out);
        client.Sent(static_cast<uint32_t>(out.size()));
      }
      ASSERT_TRUE(server.Receive(to_server).ok());
      for (std::string_view out; !(out = server.Output()).empty();) {
        to_client.append(out);
        server.Sent(static_cast<uint32_t>(out.size()));
      }
      if (to_server.empty() && to_client.empty()) return;
      ASSERT_TRUE(client.Receive(to_client).ok());
    }
    FAIL() << "the two sides kept talking";
  }

  struct Received {
    int32_t stream_id;
    std::string echo;
  };
  Http2ClientSession client;
  Http2ServerSession server;
  RequestTemplate request;
  std::vector<StreamEnd> ends;
  std::vector<Received> requests;
};

TEST(Http2ServerSessionTest, RequestsComeOnceAndAreAnsweredInAnyOrder) {
  Pair pair;
  for (uint32_t tag = 0; tag < 3; ++tag)
    ASSERT_TRUE(pair.client.Submit(pair.request, {.index = tag}, tag).ok());
  pair.Pump();
  ASSERT_EQ(pair.requests.size(), 3u);
  EXPECT_EQ(pair.requests[1].echo, "1");  // The last segment of /item/1.
  // Answered last to first.
  for (int k = 2; k >= 0; --k) {
    pair.server.Respond(pair.requests[k].stream_id, 200 + k, pair.requests[k].echo);
  }
  pair.Pump();
  ASSERT_EQ(pair.ends.size(), 3u);
  EXPECT_EQ(pair.ends[0].tag, 2u);
  for (const StreamEnd& end : pair.ends) {
    EXPECT_TRUE(end.complete);
    EXPECT_EQ(end.status, 200 + static_cast<int>(end.tag));
  }
}

TEST(Http2ServerSessionTest, APartialAnswerAndAResetAreResets) {
  Pair pair;
  ASSERT_TRUE(pair.client.Submit(pair.request, {.index = 0}, 0).ok());
  ASSERT_TRUE(pair.client.Submit(pair.request, {.index = 1}, 1).ok());
  pair.Pump();
  ASSERT_EQ(pair.requests.size(), 2u);
  std::string body(100, 'x');  // Longer than what Respond copies: it must outlive the stream.
  pair.server.Respond(pair.requests[0].stream_id, 200, body, /*partial=*/true);
  pair.server.Reset(pair.requests[1].stream_id, NGHTTP2_INTERNAL_ERROR);
  pair.Pump();
  ASSERT_EQ(pair.ends.size(), 2u);
  for (const StreamEnd& end : pair.ends) {
    EXPECT_FALSE(end.complete);
    EXPECT_EQ(end.error_code, uint32_t{NGHTTP2_INTERNAL_ERROR});
  }
}

// The GOAWAY names stream 1; stream 3 crosses it on the wire. (Whether nghttp2 still reports
// stream 3 to the server is its business: serve ignores streams above its GOAWAY.)
TEST(Http2ServerSessionTest, AGoawayLeavesLaterStreamsUnprocessed) {
  Pair pair;
  ASSERT_TRUE(pair.client.Submit(pair.request, {.index = 0}, 0).ok());
  pair.Pump();
  pair.server.GoAway();
  ASSERT_TRUE(pair.client.Submit(pair.request, {.index = 1}, 1).ok());
  pair.Pump();
  ASSERT_GE(pair.requests.size(), 1u);
  pair.server.Respond(pair.requests[0].stream_id, 200, "ok");
  pair.Pump();
  ASSERT_EQ(pair.ends.size(), 2u);
  for (const StreamEnd& end : pair.ends) {
    EXPECT_EQ(end.complete, end.tag == 0);
    EXPECT_EQ(end.unprocessed, end.tag == 1);
  }
  EXPECT_FALSE(pair.client.can_open());
}

TEST(Http2ServerSessionTest, AMalformedFrameFailsTheClient) {
  Pair pair;
  ASSERT_TRUE(pair.client.Submit(pair.request, {.index = 0}, 0).ok());
  pair.Pump();
  pair.server.InjectMalformedFrame();
  pair.Pump();
  EXPECT_TRUE(pair.client.failed());
}

// A client uploads under HTTP/2's initial window until the server's smaller one reaches it, so
// the server may hold more unacknowledged bytes of a stream than its new window when the
// client's SETTINGS ACK arrives. nghttp2's automatic WINDOW_UPDATE then reset such a stream
// (FLOW_CONTROL_ERROR) once a WINDOW_UPDATE queued before the ACK went out; the server
// acknowledges what it consumed itself instead.
TEST(Http2ServerSessionTest, UploadsAheadOfItsSmallerWindowAreNotResets) {
  Pair pair({.max_streams = 8, .window = 1024});
  RequestSpec spec;
  spec.method = "POST";
  spec.target = "/up";
  spec.host_header = "example.test";
  spec.body = std::string(64 * 1024, 'u');  // More than the initial window: not all sent.
  RequestTemplate upload = *RequestTemplate::Build(spec);
  ASSERT_TRUE(pair.client.Submit(upload, {.index = 0}, 0).ok());
  std::string server_settings(pair.server.Output());
  pair.server.Sent(static_cast<uint32_t>(server_settings.size()));
  // The client's preface and its DATA up to the initial 65,535 bytes, then its ACK of the
  // server's SETTINGS: all in one read, so the WINDOW_UPDATE queued for the first two frames
  // has not left when the ACK makes the window 1,024.
  std::string to_server;
  for (std::string_view out; !(out = pair.client.Output()).empty();) {
    to_server.append(out);
    pair.client.Sent(static_cast<uint32_t>(out.size()));
  }
  ASSERT_TRUE(pair.client.Receive(server_settings).ok());
  for (std::string_view out; !(out = pair.client.Output()).empty();) {
    to_server.append(out);
    pair.client.Sent(static_cast<uint32_t>(out.size()));
  }
  ASSERT_TRUE(pair.server.Receive(to_server).ok());
  pair.Pump();
  ASSERT_EQ(pair.requests.size(), 1u);
  pair.server.Respond(pair.requests[0].stream_id, 200, "done");
  pair.Pump();
  ASSERT_EQ(pair.ends.size(), 1u);
  EXPECT_EQ(pair.ends[0].error_code, 0u);
  EXPECT_TRUE(pair.ends[0].complete);
  EXPECT_EQ(pair.ends[0].status, 200);
}

TEST(Http2ServerSessionTest, ItsSettingsReachTheClient) {
  Pair pair({.max_streams = 3, .window = 1024});
  pair.Pump();
  EXPECT_EQ(pair.client.peer_max_streams(), 3u);
}

}  // namespace
}  // namespace uringload::proto
