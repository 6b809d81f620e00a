#include "proto/http2_client_session.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/testing/http2_test_server.h"

namespace uringload::proto {
namespace {

using testing::Http2TestServer;

class Recorder : public Http2ClientSession::Events {
 public:
  void OnStreamEnd(const Http2StreamEnd& end) override { ends.push_back(end); }
  std::vector<Http2StreamEnd> ends;
};

RequestTemplate Template(const std::string& method, const std::string& target,
                         const std::string& body = "") {
  RequestSpec spec;
  spec.method = method;
  spec.target = target;
  spec.host_header = "example.test:8080";
  spec.body = body;
  absl::StatusOr<RequestTemplate> t = RequestTemplate::Build(spec);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// Moves bytes both ways until neither side has any to send; `sent` counts the client's.
void Pump(Http2ClientSession& client, Http2TestServer& server, size_t* sent = nullptr) {
  for (int round = 0; round < 1000; ++round) {
    std::string to_server;
    for (std::string_view out; !(out = client.Output()).empty();) {
      to_server.append(out);
      client.Sent(static_cast<uint32_t>(out.size()));
    }
    if (sent != nullptr) *sent += to_server.size();
    ASSERT_TRUE(server.Receive(to_server));
    std::string to_client = server.Output();
    if (to_server.empty() && to_client.empty()) return;
    ASSERT_TRUE(client.Receive(to_client).ok());
  }
  FAIL() << "the two sides kept talking";
}

TEST(Http2ClientSessionTest, EachStreamEndsOnceWithItsStatusAndItsTag) {
  Http2TestServer server;
  server.answer = [](const Http2TestServer::Request& r) {
    return Http2TestServer::Answer{.status = r.path == "/b/2" ? 404 : 200};
  };
  Http2ClientSession client(4);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  RequestTemplate t = Template("GET", "/b/{i}");
  for (uint32_t tag = 0; tag < 3; ++tag) ASSERT_TRUE(client.Submit(t, tag, tag).ok());
  EXPECT_EQ(client.open_streams(), 3u);
  Pump(client, server);
  ASSERT_EQ(events.ends.size(), 3u);
  for (const Http2StreamEnd& end : events.ends) {
    EXPECT_TRUE(end.complete);
    EXPECT_EQ(end.error_code, 0u);
    EXPECT_EQ(end.status, end.tag == 2 ? 404 : 200);
  }
  ASSERT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(server.requests()[0].path, "/b/0");
  EXPECT_EQ(server.requests()[0].method, "GET");
  EXPECT_EQ(server.requests()[0].authority, "example.test:8080");
  EXPECT_EQ(client.open_streams(), 0u);
  EXPECT_EQ(client.streams_opened(), 3u);
}

TEST(Http2ClientSessionTest, AResetStreamEndsWithItsErrorCode) {
  Http2TestServer server;
  server.answer = [](const Http2TestServer::Request& r) {
    return Http2TestServer::Answer{.reset = r.path == "/1" ? uint32_t{NGHTTP2_INTERNAL_ERROR} : 0};
  };
  Http2ClientSession client(2);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  RequestTemplate t = Template("GET", "/{i}");
  ASSERT_TRUE(client.Submit(t, 0, 0).ok());
  ASSERT_TRUE(client.Submit(t, 1, 1).ok());
  Pump(client, server);
  ASSERT_EQ(events.ends.size(), 2u);
  for (const Http2StreamEnd& end : events.ends) {
    if (end.tag == 1) {
      EXPECT_FALSE(end.complete);
      EXPECT_FALSE(end.unprocessed);
      EXPECT_EQ(end.error_code, uint32_t{NGHTTP2_INTERNAL_ERROR});
    } else {
      EXPECT_TRUE(end.complete);
    }
  }
}

// GOAWAY after the 2nd request: the 3rd and 4th were never processed and may go again; no new
// stream may open.
TEST(Http2ClientSessionTest, StreamsAboveAGoawaysLastStreamAreUnprocessed) {
  Http2TestServer server;
  server.goaway_after = 2;
  Http2ClientSession client(4);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  RequestTemplate t = Template("GET", "/{i}");
  for (uint32_t tag = 0; tag < 4; ++tag) ASSERT_TRUE(client.Submit(t, tag, tag).ok());
  Pump(client, server);
  ASSERT_EQ(events.ends.size(), 4u);
  int complete = 0;
  int unprocessed = 0;
  for (const Http2StreamEnd& end : events.ends) {
    complete += end.complete;
    unprocessed += end.unprocessed;
    EXPECT_EQ(end.unprocessed, end.tag >= 2) << end.tag;
  }
  EXPECT_EQ(complete, 2);
  EXPECT_EQ(unprocessed, 2);
  EXPECT_FALSE(client.can_open());
}

TEST(Http2ClientSessionTest, TheServersStreamLimitIsSeen) {
  Http2TestServer server(/*max_streams=*/3);
  Http2ClientSession client(8);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  EXPECT_EQ(client.peer_max_streams(), 100u);  // nghttp2's assumption until SETTINGS arrive.
  Pump(client, server);
  EXPECT_EQ(client.peer_max_streams(), 3u);
}

// A 200 KiB upload through the default 64 KiB window: it flows as the server's WINDOW_UPDATEs
// allow, every byte arrives, and the frames left the session whole.
TEST(Http2ClientSessionTest, AnUploadFlowsThroughTheWindow) {
  Http2TestServer server;
  Http2ClientSession client(1);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  RequestTemplate t = Template("POST", "/upload", std::string(200 * 1024, 'x'));
  ASSERT_TRUE(client.Submit(t, 0, 0).ok());
  size_t sent = 0;
  Pump(client, server, &sent);
  ASSERT_EQ(events.ends.size(), 1u);
  EXPECT_TRUE(events.ends[0].complete);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].body_bytes, 200u * 1024);
  EXPECT_GT(sent, 200u * 1024);
}

TEST(Http2ClientSessionTest, GarbageIsAConnectionError) {
  Http2ClientSession client(1);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  // A server preface must be a SETTINGS frame; this is HTTP/1.1.
  ASSERT_TRUE(client.Receive("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").ok());
  EXPECT_FALSE(client.Output().empty());  // Its GOAWAY.
  EXPECT_TRUE(client.failed());
  EXPECT_FALSE(client.failure().empty());
  EXPECT_FALSE(client.failed_in_hpack());
}

TEST(Http2ClientSessionTest, AWellBehavedServerNeverFailsIt) {
  Http2TestServer server;
  Http2ClientSession client(1);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  ASSERT_TRUE(client.Submit(Template("GET", "/"), 0, 0).ok());
  Pump(client, server);
  EXPECT_FALSE(client.failed());
}

// A session starts again for the connection's next incarnation, with stream ids from 1.
TEST(Http2ClientSessionTest, StartAgainIsAFreshConnection) {
  Http2ClientSession client(1);
  Recorder events;
  RequestTemplate t = Template("GET", "/");
  for (int connection = 0; connection < 2; ++connection) {
    Http2TestServer server;
    ASSERT_TRUE(client.Start(&events).ok());
    ASSERT_TRUE(client.Submit(t, 0, 0).ok());
    Pump(client, server);
    ASSERT_EQ(server.requests().size(), 1u);
    EXPECT_EQ(server.requests()[0].stream_id, 1);
  }
  EXPECT_EQ(events.ends.size(), 2u);
}

}  // namespace
}  // namespace uringload::proto
