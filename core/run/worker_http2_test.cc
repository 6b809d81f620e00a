// The client Worker over HTTP/2 (h2c, --http2) against in-memory nghttp2 servers, one per
// connection, behind the fake loop: streams, resets, GOAWAY, the server's stream limit,
// stalls. No sockets.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/testing/worker_test_client.h"
#include "proto/testing/http2_test_server.h"

namespace uringload::core::test_support {
namespace {

using proto::testing::Http2TestServer;

RunOptions Http2Options(int64_t n, int64_t c, int64_t streams) {
  RunOptions o = Options(n, c);
  o.http2 = true;
  o.pipeline = streams;
  return o;
}

uint64_t Count(const RunStats& s, Outcome o) { return s.outcomes[static_cast<size_t>(o)]; }

// Every connect succeeds and meets a fresh server made by `make`; every send reaches it at
// once and its answer comes back as one receive (or, with frame_per_receive, a receive per
// frame, all in the same drain: as over TLS, where each record is handed over by itself).
class Servers {
 public:
  bool frame_per_receive = false;

  using Make = std::function<std::unique_ptr<Http2TestServer>()>;
  explicit Servers(
      FakeEventLoop& loop, Make make = [] { return std::make_unique<Http2TestServer>(); })
      : make_(std::move(make)) {
    loop.on_submit = [this](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
      if (s.op == Op::kConnect) {
        all_.push_back(make_());
        current_[s.slot] = all_.back().get();
        l.Complete(s.slot, Op::kConnect, 0);
      }
      if (s.op == Op::kSend) {
        l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
        Http2TestServer& server = *current_[s.slot];
        EXPECT_TRUE(server.Receive(s.bytes));
        std::string answer = server.Output();
        while (frame_per_receive && answer.size() >= 9) {
          size_t frame = 9 + ((size_t{uint8_t(answer[0])} << 16) |
                              (size_t{uint8_t(answer[1])} << 8) | uint8_t(answer[2]));
          l.Complete(s.slot, Op::kRecv, static_cast<int>(frame), answer.substr(0, frame));
          answer.erase(0, frame);
        }
        if (!answer.empty()) {
          l.Complete(s.slot, Op::kRecv, static_cast<int>(answer.size()), answer);
        }
      }
    };
  }
  // Paths of every request a server processed, over all connections.
  std::multiset<std::string> Paths() const {
    std::multiset<std::string> paths;
    for (const auto& server : all_) {
      for (const Http2TestServer::Request& r : server->requests()) paths.insert(r.path);
    }
    return paths;
  }
  size_t connections() const { return all_.size(); }
  // The error codes of the RST_STREAMs the client sent, over all connections.
  std::vector<uint32_t> ResetsReceived() const {
    std::vector<uint32_t> codes;
    for (const auto& server : all_) {
      codes.insert(codes.end(), server->resets_received().begin(), server->resets_received().end());
    }
    return codes;
  }

 private:
  Make make_;
  std::vector<std::unique_ptr<Http2TestServer>> all_;
  std::map<uint32_t, Http2TestServer*> current_;
};

TEST(WorkerHttp2Test, EveryRequestIsAStreamAnsweredOnce) {
  Client client(Http2Options(100, 2, 8));
  Servers servers(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 100u);
  EXPECT_EQ(s.started, 100u);
  EXPECT_EQ(s.connections_opened, 2u);
  EXPECT_EQ(s.connections_http2, 2u);
  EXPECT_EQ(s.status_codes[200], 100u);
  std::multiset<std::string> paths = servers.Paths();
  ASSERT_EQ(paths.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(paths.count("/" + std::to_string(i)), 1u) << i;
}

// The streams that end in one drain are replaced by streams that go out in one send, however
// many receives ended them: 4 streams, 40 requests, 10 sends of 4 requests each (the first
// with the preface and SETTINGS, the second with the ACK of the server's). A send per
// receive made 19.
TEST(WorkerHttp2Test, TheStreamsOfOneDrainGoOutInOneSend) {
  Client client(Http2Options(40, 1, 4));
  Servers servers(client.loop());
  servers.frame_per_receive = true;
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 40u);
  EXPECT_EQ(client.loop().Count(Op::kSend), 10u);
}

TEST(WorkerHttp2Test, AResetStreamIsAResetWithItsErrorCode) {
  Client client(Http2Options(50, 1, 4));
  Servers servers(client.loop(), [] {
    auto server = std::make_unique<Http2TestServer>();
    server->answer = [](const Http2TestServer::Request& r) {
      bool reset = r.path.back() == '7';  // /7, /17, ... /47: 5 of them.
      return Http2TestServer::Answer{.reset = reset ? uint32_t{NGHTTP2_INTERNAL_ERROR} : 0};
    };
    return server;
  });
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 45u);
  EXPECT_EQ(Count(s, Outcome::kReset), 5u);
  EXPECT_EQ(s.causes[size_t(Outcome::kReset)][Http2Cause(NGHTTP2_INTERNAL_ERROR)], 5u);
  EXPECT_EQ(s.connections_opened, 1u);  // A stream's reset leaves the connection open.
}

// Each connection's server processes 5 requests and sends GOAWAY: the streams above it go out
// again on a new connection, and every request is processed exactly once.
TEST(WorkerHttp2Test, AGoawaysUnprocessedStreamsAreSentOnceMoreOnANewConnection) {
  Client client(Http2Options(40, 1, 4));
  Servers servers(client.loop(), [] {
    auto server = std::make_unique<Http2TestServer>();
    server->goaway_after = 5;
    return server;
  });
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 40u);
  EXPECT_EQ(s.started, 40u);
  EXPECT_GT(s.retried, 0u);
  EXPECT_EQ(s.connections_opened, servers.connections());
  EXPECT_GE(servers.connections(), 8u);
  std::multiset<std::string> paths = servers.Paths();
  ASSERT_EQ(paths.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(paths.count("/" + std::to_string(i)), 1u) << i;
}

TEST(WorkerHttp2Test, TheServersStreamLimitCapsStreamsInFlight) {
  Client client(Http2Options(30, 1, 8));
  Servers servers(client.loop(), [] { return std::make_unique<Http2TestServer>(2); });
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 30u);
  EXPECT_EQ(s.streams_capped_at, 2u);
}

// A stalled stream on a connection that answers the others times out alone: the client
// cancels it (RST_STREAM CANCEL) and the connection carries the rest.
TEST(WorkerHttp2Test, AStalledStreamTimesOutAloneAndIsCancelled) {
  Client client(Http2Options(200, 1, 4));
  client.loop().on_wait = [](FakeEventLoop& l) { l.Advance(50'000'000); };  // 1s: 20 waits.
  Servers servers(client.loop(), [] {
    auto server = std::make_unique<Http2TestServer>();
    server->answer = [](const Http2TestServer::Request& r) {
      return Http2TestServer::Answer{.stall = r.path == "/3" || r.path == "/11"};
    };
    return server;
  });
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 198u);
  EXPECT_EQ(Count(s, Outcome::kTimeout), 2u);
  EXPECT_EQ(s.connections_opened, 1u);
  EXPECT_EQ(servers.ResetsReceived(), (std::vector<uint32_t>{NGHTTP2_CANCEL, NGHTTP2_CANCEL}));
}

// A stream that times out with nothing received since its send: the connection is dead, it
// closes, and the next request goes on a new one.
TEST(WorkerHttp2Test, AStalledStreamTimesOut) {
  Client client(Http2Options(10, 1, 1));
  client.loop().on_wait = [](FakeEventLoop& l) { l.Advance(50'000'000); };
  Servers servers(client.loop(), [] {
    auto server = std::make_unique<Http2TestServer>();
    server->answer = [](const Http2TestServer::Request& r) {
      return Http2TestServer::Answer{.stall = r.path == "/3"};
    };
    return server;
  });
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 9u);
  EXPECT_EQ(Count(s, Outcome::kTimeout), 1u);
  EXPECT_EQ(s.connections_opened, 2u);
}

// A server that speaks HTTP/1.1 to an h2c client: a protocol error, every stream in flight a
// parse_error, and the next request on a new connection.
TEST(WorkerHttp2Test, AnHttp1AnswerIsAProtocolError) {
  Client client(Http2Options(3, 1, 1));
  AnswerEverything(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kParseError), 3u);
  EXPECT_EQ(s.causes[size_t(Outcome::kParseError)][int(ParseFailure::kHttp2Protocol)], 3u);
  EXPECT_EQ(s.connections_opened, 3u);
}

TEST(WorkerHttp2Test, WithoutKeepAliveEachConnectionCarriesOneStream) {
  RunOptions o = Http2Options(6, 2, 1);
  o.no_keepalive = true;
  Client client(o);
  Servers servers(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 6u);
  EXPECT_EQ(s.connections_opened, 6u);
  EXPECT_EQ(servers.Paths().size(), 6u);
}

}  // namespace
}  // namespace uringload::core::test_support
