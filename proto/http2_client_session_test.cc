#include "proto/http2_client_session.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proto/http2_server_session.h"
#include "proto/testing/http2_client_helpers.h"
#include "proto/testing/http2_test_server.h"

namespace uringload::proto {
namespace {

using testing::Http2TestServer;
using testing::Recorder;
using testing::Template;

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

// Each stream ends once, with its status and its tag. A response whose :status is not three
// digits is malformed (RFC 9113 8.1.1): nghttp2 resets that stream with PROTOCOL_ERROR itself,
// and it ends as malformed, not as the server's reset, while the others are answered.
TEST(Http2ClientSessionTest, EachStreamEndsOnceWithItsStatusAndItsTag) {
  Http2TestServer server;
  server.answer = [](const Http2TestServer::Request& r) {
    return Http2TestServer::Answer{.status = r.path == "/b/2" ? 404 : r.path == "/b/3" ? 20 : 200};
  };
  Http2ClientSession client(4);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  RequestTemplate t = Template("GET", "/b/{i}");
  for (uint32_t tag = 0; tag < 4; ++tag) ASSERT_TRUE(client.Submit(t, {.index = tag}, tag).ok());
  EXPECT_EQ(client.open_streams(), 4u);
  Pump(client, server);
  ASSERT_EQ(events.ends.size(), 4u);
  for (const StreamEnd& end : events.ends) {
    if (end.tag == 3) {
      EXPECT_FALSE(end.complete);
      EXPECT_TRUE(end.malformed);
      EXPECT_EQ(end.error_code, uint32_t{NGHTTP2_PROTOCOL_ERROR});
      continue;
    }
    EXPECT_TRUE(end.complete);
    EXPECT_FALSE(end.malformed);
    EXPECT_EQ(end.error_code, 0u);
    EXPECT_EQ(end.status, end.tag == 2 ? 404 : 200);
  }
  ASSERT_EQ(server.requests().size(), 4u);
  EXPECT_EQ(server.requests()[0].path, "/b/0");
  EXPECT_EQ(server.requests()[0].method, "GET");
  EXPECT_EQ(server.requests()[0].authority, "example.test:8080");
  EXPECT_EQ(client.open_streams(), 0u);
  EXPECT_EQ(client.streams_opened(), 4u);
}

// With a body matcher each stream's DATA is searched as it arrives, across frames (a 40 KiB
// body comes in several, the text across a frame boundary in one of them); without one no
// body is looked at.
TEST(Http2ClientSessionTest, ABodyCheckSeesTheTextInEachStreamsData) {
  std::string big(40 * 1024, 'x');
  big.replace(16 * 1024 - 3, 7, "\"items\"");  // Across the first DATA frame's end.
  BodyMatcher matcher("\"items\"");
  for (bool checking : {true, false}) {
    Http2TestServer server;
    server.answer = [&big](const Http2TestServer::Request& r) {
      if (r.path == "/0") return Http2TestServer::Answer{.body = big};
      if (r.path == "/1") return Http2TestServer::Answer{.body = "{\"items\":[]}"};
      return Http2TestServer::Answer{.body = "{\"item\":[]}"};
    };
    Http2ClientSession client(4);
    if (checking) client.SetBodyMatcher(&matcher);
    Recorder events;
    ASSERT_TRUE(client.Start(&events).ok());
    RequestTemplate t = Template("GET", "/{i}");
    for (uint32_t tag = 0; tag < 3; ++tag) ASSERT_TRUE(client.Submit(t, {.index = tag}, tag).ok());
    Pump(client, server);
    ASSERT_EQ(events.ends.size(), 3u);
    for (const StreamEnd& end : events.ends) {
      EXPECT_TRUE(end.complete);
      EXPECT_EQ(end.body_found, checking && end.tag != 2) << end.tag;
    }
  }
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
  ASSERT_TRUE(client.Submit(t, {.index = 0}, 0).ok());
  ASSERT_TRUE(client.Submit(t, {.index = 1}, 1).ok());
  Pump(client, server);
  ASSERT_EQ(events.ends.size(), 2u);
  for (const StreamEnd& end : events.ends) {
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
  for (uint32_t tag = 0; tag < 4; ++tag) ASSERT_TRUE(client.Submit(t, {.index = tag}, tag).ok());
  Pump(client, server);
  ASSERT_EQ(events.ends.size(), 4u);
  int complete = 0;
  int unprocessed = 0;
  for (const StreamEnd& end : events.ends) {
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
  ASSERT_TRUE(client.Submit(t, {.index = 0}, 0).ok());
  size_t sent = 0;
  Pump(client, server, &sent);
  ASSERT_EQ(events.ends.size(), 1u);
  EXPECT_TRUE(events.ends[0].complete);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].body_bytes, 200u * 1024);
  EXPECT_GT(sent, 200u * 1024);
}

// Three sessions of one worker share nghttp2's frame buffer (Http2Memory): all are made before
// any sends, their sends interleave, and every byte of every
// upload and of a header block longer than one frame (HEADERS + CONTINUATION) arrives as it
// was, on the right connection.
TEST(Http2ClientSessionTest, SessionsSharingAWorkersMemoryKeepTheirOwnFrames) {
  constexpr int kSessions = 3;
  Http2Memory memory;
  std::vector<std::unique_ptr<Http2ClientSession>> clients;
  std::vector<std::unique_ptr<Http2TestServer>> servers;
  std::vector<Recorder> events(kSessions);
  std::vector<RequestTemplate> uploads;
  std::vector<std::string> bodies;
  for (int k = 0; k < kSessions; ++k) {
    bodies.push_back(std::string(100 * 1024 + k, static_cast<char>('a' + k)));
    uploads.push_back(Template("POST", "/up/{i}", bodies.back()));
  }
  RequestSpec spec;
  spec.target = "/big";
  spec.host_header = "example.test";
  spec.headers = {"x-long: " + std::string(40 * 1024, 'h')};
  absl::StatusOr<RequestTemplate> long_header = RequestTemplate::Build(spec);
  ASSERT_TRUE(long_header.ok()) << long_header.status();
  std::vector<std::string_view> unsent(kSessions);
  for (int k = 0; k < kSessions; ++k) {
    servers.push_back(std::make_unique<Http2TestServer>());
    servers[k]->keep_bodies = true;
    clients.push_back(std::make_unique<Http2ClientSession>(2, Http2ClientSettings{}, &memory));
    ASSERT_TRUE(clients[k]->Start(&events[k]).ok());
  }
  // The last made runs first: the others' prefaces must not be in the shared buffer any more.
  for (int k = kSessions - 1; k >= 0; --k) {
    ASSERT_TRUE(clients[k]->Submit(uploads[k], {.index = static_cast<uint64_t>(k)}, 0).ok());
    ASSERT_TRUE(clients[k]->Submit(*long_header, {.index = static_cast<uint64_t>(k)}, 1).ok());
    unsent[k] = clients[k]->Output();  // Held while the other sessions run.
  }
  for (int round = 0; round < 1000; ++round) {
    bool quiet = true;
    for (int k = 0; k < kSessions; ++k) {
      if (unsent[k].empty()) unsent[k] = clients[k]->Output();
    }
    for (int k = 0; k < kSessions; ++k) {  // The sessions' views, all taken before any is sent.
      ASSERT_TRUE(servers[k]->Receive(unsent[k]));
      clients[k]->Sent(static_cast<uint32_t>(unsent[k].size()));
      std::string to_client = servers[k]->Output();
      quiet = quiet && unsent[k].empty() && to_client.empty();
      unsent[k] = {};
      ASSERT_TRUE(clients[k]->Receive(to_client).ok());
    }
    if (quiet) break;
  }
  for (int k = 0; k < kSessions; ++k) {
    ASSERT_EQ(events[k].ends.size(), 2u) << k;
    EXPECT_TRUE(events[k].ends[0].complete && events[k].ends[1].complete) << k;
    ASSERT_EQ(servers[k]->requests().size(), 2u) << k;
    for (const Http2TestServer::Request& r : servers[k]->requests()) {
      if (r.path == "/big") {
        EXPECT_EQ(r.last_field_value, std::string(40 * 1024, 'h')) << k;
      } else {
        EXPECT_EQ(r.path, "/up/" + std::to_string(k));
        EXPECT_TRUE(r.body == bodies[k]) << k << ": " << r.body.size() << " bytes";
      }
    }
  }
  EXPECT_LE(memory.outputs_made(), static_cast<size_t>(kSessions));
}

// The header table is announced whatever its size, HPACK's default too (nginx keeps nothing in
// the table of a client that announces one), and a server honours it.
TEST(Http2ClientSessionTest, TheHeaderTableIsAlwaysAnnounced) {
  std::optional<size_t> first_sent;
  for (uint32_t table : {kHttp2DefaultHeaderTable, uint32_t{0}, uint32_t{512}}) {
    Http2TestServer server;
    Http2ClientSession client(1, Http2ClientSettings{.header_table = table});
    Recorder events;
    ASSERT_TRUE(client.Start(&events).ok());
    RequestTemplate t = Template("GET", "/");
    ASSERT_TRUE(client.Submit(t, {.index = 0}, 0).ok());
    size_t sent = 0;
    Pump(client, server, &sent);
    ASSERT_EQ(events.ends.size(), 1u);
    EXPECT_TRUE(events.ends[0].complete);
    EXPECT_TRUE(server.client_announced(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE)) << table;
    EXPECT_EQ(server.client_setting(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE), table);
    // The client never sends a priority, and says so (RFC 9218 2.1).
    EXPECT_EQ(server.client_setting(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES), 1u);
    // The same four entries whatever the size.
    if (!first_sent) first_sent = sent;
    EXPECT_EQ(sent, *first_sent) << table;
  }
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
  RequestTemplate t = Template("GET", "/");
  ASSERT_TRUE(client.Submit(t, {.index = 0}, 0).ok());
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
    ASSERT_TRUE(client.Submit(t, {.index = 0}, 0).ok());
    Pump(client, server);
    ASSERT_EQ(server.requests().size(), 1u);
    EXPECT_EQ(server.requests()[0].stream_id, 1);
  }
  EXPECT_EQ(events.ends.size(), 2u);
}

// A flow's user over HTTP/2: it sees each response begin, its header fields and its DATA;
// its Cookie line goes out as the cookie field, and no field at all when its jar is empty.
TEST(Http2ClientSessionTest, AnInspectorSeesResponsesAndAWriterSendsTheCookieField) {
  struct Inspector : ResponseInspector {
    void OnResponseBegin() override { ++begun; }
    void OnHeaderName(std::string_view piece) override { headers += std::string(piece) + ": "; }
    void OnHeaderValue(std::string_view piece) override { headers += piece; }
    void OnHeaderEnd() override { headers += "\n"; }
    void OnBody(std::string_view piece) override { body += piece; }
    int begun = 0;
    std::string headers;
    std::string body;
  };
  struct Cookies : ColumnWriter {
    size_t Write(std::span<char> out) const override {
      line.copy(out.data(), line.size());
      return line.size();
    }
    size_t max_size() const override { return 64; }
    std::string line;
  };
  Http2TestServer server;
  server.answer = [](const Http2TestServer::Request&) {
    return Http2TestServer::Answer{.body = "{\"token\":\"t\"}"};
  };
  Http2ClientSession client(1);
  Inspector inspector;
  client.SetInspector(&inspector);
  Recorder events;
  ASSERT_TRUE(client.Start(&events).ok());
  RequestTemplate t = Template("GET", "/cart");
  Cookies cookies;
  cookies.line = "Cookie: sid=s1; lang=en\r\n";
  ASSERT_TRUE(client.Submit(t, {.index = 0, .writer = &cookies, .written_column = 0}, 0).ok());
  Pump(client, server);
  cookies.line.clear();  // An empty jar: no cookie field.
  ASSERT_TRUE(client.Submit(t, {.index = 1, .writer = &cookies, .written_column = 0}, 0).ok());
  Pump(client, server);
  ASSERT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(server.requests()[0].last_field_value, "sid=s1; lang=en");
  EXPECT_NE(server.requests()[1].last_field_value, "");
  EXPECT_EQ(server.requests()[1].last_field_value.find("sid"), std::string::npos);
  EXPECT_EQ(inspector.begun, 2);
  EXPECT_EQ(inspector.body, "{\"token\":\"t\"}{\"token\":\"t\"}");
  ASSERT_EQ(events.ends.size(), 2u);
  EXPECT_EQ(events.ends[1].status, 200);
}

}  // namespace
}  // namespace uringload::proto
