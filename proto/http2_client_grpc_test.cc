// Http2ClientSession's gRPC calls against the server session serve uses
// (Http2ServerSession::RespondGrpc): statuses, messages, partial answers and the echo.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/http2_client_session.h"
#include "proto/http2_server_session.h"
#include "proto/testing/http2_client_helpers.h"

namespace uringload::proto {
namespace {

using testing::Recorder;
using testing::Template;

// A gRPC client session talking to a server session in memory (serve's side of a call).
class GrpcPair : public Http2ServerSession::Events {
 public:
  explicit GrpcPair(const Http2ServerSession::Settings& settings) : client(4) {
    EXPECT_TRUE(server.Start(this, settings).ok());
    client.SetGrpc(true);
    EXPECT_TRUE(client.Start(&events).ok());
  }
  void OnRequest(const Http2ServerSession::Request& request) override {
    ids.push_back(request.stream_id);
  }
  // Moves bytes both ways until neither side has any to send.
  void Pump() {
    for (int round = 0; round < 100; ++round) {
      std::string to_server;
      for (std::string_view out; !(out = client.Output()).empty();) {
        to_server.append(out);
        client.Sent(static_cast<uint32_t>(out.size()));
      }
      ASSERT_TRUE(server.Receive(to_server).ok());
      std::string to_client;
      for (std::string_view out; !(out = server.Output()).empty();) {
        to_client.append(out);
        server.Sent(static_cast<uint32_t>(out.size()));
      }
      if (to_server.empty() && to_client.empty()) return;
      ASSERT_TRUE(client.Receive(to_client).ok());
    }
  }

  Http2ServerSession server;
  Http2ClientSession client;
  Recorder events;
  std::vector<int32_t> ids;  // The calls the server received, in order.
};

// A gRPC call's end as serve answers it (Http2ServerSession::RespondGrpc): an OK call's one
// message and its trailer; a trailers-only status; half a message and a reset (never OK).
TEST(Http2ClientSessionTest, GrpcCallsEndWithTheirStatusAndMessages) {
  GrpcPair pair({});
  RequestTemplate t =
      Template("POST", "/shop.Carts/Get", std::string("\0\0\0\0\0", 5), /*grpc=*/true);
  for (uint32_t tag = 0; tag < 3; ++tag) {
    ASSERT_TRUE(pair.client.Submit(t, {.index = tag}, tag).ok());
  }
  pair.Pump();
  ASSERT_EQ(pair.ids.size(), 3u);
  pair.server.RespondGrpc(pair.ids[0], 0);
  pair.server.RespondGrpc(pair.ids[1], 14);
  pair.server.RespondGrpc(pair.ids[2], 0, /*partial=*/true);
  pair.Pump();
  ASSERT_EQ(pair.events.ends.size(), 3u);
  for (const StreamEnd& end : pair.events.ends) {
    if (end.tag == 0) {
      EXPECT_TRUE(end.complete);
      EXPECT_EQ(end.grpc_status, 0);
      EXPECT_EQ(end.grpc_messages, 1u);
      EXPECT_FALSE(end.grpc_malformed);
    } else if (end.tag == 1) {
      EXPECT_TRUE(end.complete);
      EXPECT_EQ(end.grpc_status, 14);
      EXPECT_EQ(end.grpc_messages, 0u);
    } else {
      EXPECT_FALSE(end.complete);
      EXPECT_EQ(end.error_code, static_cast<uint32_t>(NGHTTP2_INTERNAL_ERROR));
      EXPECT_EQ(end.grpc_status, -1);
    }
  }
}

// serve --grpc-echo: a call of three messages gets the three back, then its OK.
TEST(Http2ClientSessionTest, AnEchoedGrpcCallGetsItsOwnMessages) {
  GrpcPair pair({.keep_body = true});
  std::string messages;  // Three of 2 bytes ("ab"), each after its prefix.
  for (int k = 0; k < 3; ++k) messages.append("\0\0\0\0\2ab", 7);
  RequestTemplate t = Template("POST", "/shop.Carts/Chat", messages, /*grpc=*/true);
  ASSERT_TRUE(pair.client.Submit(t, {.index = 0}, 0).ok());
  pair.Pump();
  ASSERT_EQ(pair.ids.size(), 1u);
  pair.server.RespondGrpc(pair.ids[0], 0, /*partial=*/false, /*echo=*/true);
  pair.Pump();
  ASSERT_EQ(pair.events.ends.size(), 1u);
  const StreamEnd& end = pair.events.ends[0];
  EXPECT_TRUE(end.complete);
  EXPECT_EQ(end.grpc_status, 0);
  EXPECT_EQ(end.grpc_messages, 3u);
  EXPECT_FALSE(end.grpc_malformed);
}

}  // namespace
}  // namespace uringload::proto
