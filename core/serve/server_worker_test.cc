// The server connection logic on the fake event loop: requests arrive as scripted receive
// completions, responses are read back from what the worker sent, delays run on a clock the
// test moves. No sockets, no sleeps.
#include "core/serve/server_worker.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/testing/text_counts.h"
#include "net/testing/fake_event_loop.h"

namespace uringload::core {
namespace {

using test_support::Occurrences;

using net::FakeEventLoop;
using net::Op;

constexpr uint32_t kSlot = 7;  // The slot the scripted accept puts the connection in.

// One server worker over a fake loop, without listeners: the test scripts the accept.
class Server {
 public:
  explicit Server(ServeOptions options)
      : plan_(*MakeServePlan(options)), fixed_(MakeFixedResponses(plan_)) {
    auto loop = std::make_unique<FakeEventLoop>(plan_.table_size);
    loop_ = loop.get();
    worker_ = std::make_unique<ServerWorker>(&plan_, &fixed_, 0, &stats_, &stop_, std::move(loop));
    // Every send completes whole; with nothing left to do, the run ends.
    loop_->on_submit = [](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
      if (s.op == Op::kSend) l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    };
    loop_->on_idle = [this] { stop_ = true; };
    loop_->Complete(0, Op::kAccept, kSlot);
  }
  FakeEventLoop& loop() { return *loop_; }
  // Scripts `bytes` arriving on the connection (after the accept).
  void Arrive(const std::string& bytes) {
    loop_->Complete(kSlot, Op::kRecv, static_cast<int>(bytes.size()), bytes);
  }
  ServerRunStats Run() {
    EXPECT_TRUE(worker_->Run().ok());
    return stats_.Snapshot();
  }
  std::string Sent() const { return loop_->SentOn(kSlot); }
  bool Closed() const { return loop_->Count(Op::kClose) > 0; }

 private:
  ServePlan plan_;
  FixedResponses fixed_;
  ServerStats stats_;
  std::atomic<bool> stop_{false};
  FakeEventLoop* loop_;
  std::unique_ptr<ServerWorker> worker_;
};

ServeOptions Options() {
  ServeOptions o;
  o.threads = 1;
  return o;
}

TEST(ServerConnectionTest, AnswersARequestWithTheEchoBodyAndKeepsTheConnection) {
  Server server(Options());
  server.Arrive("GET /item/42 HTTP/1.1\r\nHost: x\r\n\r\n");
  ServerRunStats s = server.Run();
  EXPECT_EQ(server.Sent(),
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n42");
  EXPECT_EQ(s.requests_answered, 1u);
  EXPECT_FALSE(server.Closed());
}

// RFC 9110 9.3.2: a HEAD response has the headers of the GET's and no body. (With the echo's
// byte after the blank line, a client that had sent its next request read "2HTTP/1.1 ...".)
TEST(ServerConnectionTest, HeadIsAnsweredWithoutABody) {
  for (bool fixed : {false, true}) {
    ServeOptions options = Options();
    if (fixed) options.body = "fixed";
    Server server(options);
    server.Arrive("HEAD /item/42 HTTP/1.1\r\nHost: x\r\n\r\nGET /item/7 HTTP/1.1\r\n\r\n");
    server.Run();
    std::string length = fixed ? "5" : "2";
    EXPECT_EQ(server.Sent(),
              absl::StrCat("HTTP/1.1 200 OK\r\nContent-Length: ", length,
                           "\r\nConnection: keep-alive\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nContent-Length: ", fixed ? "5" : "1",
                           "\r\nConnection: keep-alive\r\n\r\n", fixed ? "fixed" : "7"));
  }
}

TEST(ServerConnectionTest, PipelinedRequestsAreAnsweredInOrder) {
  Server server(Options());
  server.Arrive("GET /a HTTP/1.1\r\n\r\nGET /bb HTTP/1.1\r\n\r\nGET /ccc HTTP/1.1\r\n\r\n");
  ServerRunStats s = server.Run();
  std::string sent = server.Sent();
  EXPECT_EQ(s.requests_answered, 3u);
  size_t a = sent.find("\r\n\r\na"), b = sent.find("\r\n\r\nbb"), c = sent.find("\r\n\r\nccc");
  ASSERT_NE(c, std::string::npos) << sent;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

std::string Pipelined(int n, const std::string& prefix = "/r") {
  std::string requests;
  for (int i = 0; i < n; ++i) absl::StrAppend(&requests, "GET ", prefix, i, " HTTP/1.1\r\n\r\n");
  return requests;
}

TEST(ServerConnectionTest, SixteenPipelinedRequestsAreAnsweredInOneSend) {
  Server server(Options());
  server.Arrive(Pipelined(16));
  ServerRunStats s = server.Run();
  EXPECT_EQ(s.requests_answered, 16u);
  EXPECT_EQ(server.loop().Count(Op::kSend), 1u);
  std::string sent = server.Sent();
  EXPECT_EQ(Occurrences(sent, "HTTP/1.1 200 OK"), 16u);
  for (int i = 1; i < 16; ++i) {  // In order: r0 before r1 ... before r15.
    EXPECT_LT(sent.find(absl::StrCat("\r\n\r\nr", i - 1, "HTTP")),
              sent.find(absl::StrCat("\r\n\r\nr", i, i < 15 ? "HTTP" : "")))
        << i;
  }
  EXPECT_EQ(s.bytes_sent, sent.size());
  EXPECT_FALSE(server.Closed());
}

TEST(ServerConnectionTest, TheSeventeenthPipelinedRequestOverflowsTheQueue) {
  Server server(Options());
  server.Arrive(Pipelined(17));
  ServerRunStats s = server.Run();
  EXPECT_EQ(s.pipeline_overflow, 1u);
  EXPECT_EQ(s.requests_answered, 0u);
  EXPECT_TRUE(server.Closed());
}

TEST(ServerConnectionTest, AConnectionCloseEndsTheBurstAndTheConnection) {
  Server server(Options());
  server.Arrive(
      "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nConnection: close\r\n\r\n"
      "GET /c HTTP/1.1\r\n\r\n");
  ServerRunStats s = server.Run();
  EXPECT_EQ(s.requests_answered, 2u);
  EXPECT_EQ(server.loop().Count(Op::kSend), 1u);
  EXPECT_EQ(server.Sent().find("\r\n\r\nc"), std::string::npos) << server.Sent();
  EXPECT_TRUE(server.Closed());
}

TEST(ServerConnectionTest, StatusFaultsGoInTheBurstAndAreCounted) {
  ServeOptions o = Options();
  o.fault_status = 503;
  o.fault_status_rate = 1;
  o.body = "hello";
  Server server(o);
  server.Arrive(Pipelined(5));
  ServerRunStats s = server.Run();
  EXPECT_EQ(server.loop().Count(Op::kSend), 1u);
  EXPECT_EQ(Occurrences(server.Sent(), "HTTP/1.1 503 "), 5u) << server.Sent();
  EXPECT_EQ(s.faults[size_t(Fault::kStatus)], 5u);
  EXPECT_EQ(s.requests_answered, 5u);
}

TEST(ServerConnectionTest, ABurstIsSplitWhereItsBufferIsFull) {
  ServeOptions o = Options();
  o.body_size = 1000;  // ~1.07 KB per response: three fit in the 4 KiB burst buffer.
  Server server(o);
  server.Arrive(Pipelined(16));
  ServerRunStats s = server.Run();
  EXPECT_EQ(s.requests_answered, 16u);
  EXPECT_EQ(server.loop().Count(Op::kSend), 6u);  // 3 + 3 + 3 + 3 + 3 + 1.
  EXPECT_EQ(Occurrences(server.Sent(), "HTTP/1.1 200 OK"), 16u);
  EXPECT_EQ(Occurrences(server.Sent(), std::string(1000, 'x')), 16u);
}

TEST(ServerConnectionTest, ConnectionCloseIsAnsweredThenClosed) {
  Server server(Options());
  server.Arrive("GET /x HTTP/1.1\r\nConnection: close\r\n\r\n");
  server.Run();
  EXPECT_NE(server.Sent().find("Connection: close\r\n"), std::string::npos);
  EXPECT_TRUE(server.Closed());
}

TEST(ServerConnectionTest, AMalformedRequestGets400ThenAClose) {
  Server server(Options());
  server.Arrive("GET /ok HTTP/1.1\r\n\r\nNOT HTTP AT ALL\r\n\r\n");
  ServerRunStats s = server.Run();
  std::string sent = server.Sent();
  EXPECT_EQ(sent.find("HTTP/1.1 200 OK"), 0u) << sent;
  EXPECT_NE(sent.find("HTTP/1.1 400 Bad Request"), std::string::npos) << sent;
  EXPECT_EQ(s.bad_requests, 1u);
  EXPECT_TRUE(server.Closed());
}

TEST(ServerConnectionTest, AnOversizedHeaderBlockGets431) {
  Server server(Options());
  std::string big = "GET / HTTP/1.1\r\nX: " + std::string(70 * 1024, 'a') + "\r\n\r\n";
  for (size_t off = 0; off < big.size(); off += 1024) server.Arrive(big.substr(off, 1024));
  ServerRunStats s = server.Run();
  EXPECT_EQ(server.Sent().find("HTTP/1.1 431 "), 0u) << server.Sent().substr(0, 80);
  EXPECT_EQ(s.bad_requests, 1u);
  EXPECT_TRUE(server.Closed());
}

TEST(ServerConnectionTest, ExpectContinueIsAnsweredBeforeTheBodyArrives) {
  Server server(Options());
  server.Arrive("POST /p HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n");
  server.loop().on_submit = [&server](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op != Op::kSend) return;
    l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    if (s.bytes == "HTTP/1.1 100 Continue\r\n\r\n") server.Arrive("abc");  // The client goes on.
  };
  ServerRunStats s = server.Run();
  EXPECT_EQ(server.Sent().find("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"), 0u)
      << server.Sent();
  EXPECT_EQ(s.requests_answered, 1u);
}

TEST(ServerConnectionTest, ADelayedResponseWaitsForItsTime) {
  ServeOptions o = Options();
  o.delay = "50ms";
  Server server(o);
  server.Arrive("GET /d HTTP/1.1\r\n\r\n");
  int64_t start = server.loop().Now();
  int64_t sent_at = 0;
  server.loop().on_submit = [&](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op != Op::kSend) return;
    sent_at = l.Now();
    l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
  };
  server.Run();
  EXPECT_GE(sent_at - start, 50'000'000);
  EXPECT_LT(sent_at - start, 60'000'000);
}

TEST(ServerConnectionTest, AResetFaultClosesWithoutAnswering) {
  ServeOptions o = Options();
  o.fault_reset = 1;
  Server server(o);
  server.Arrive("GET /r HTTP/1.1\r\n\r\n");
  ServerRunStats s = server.Run();
  EXPECT_EQ(server.Sent(), "");
  EXPECT_TRUE(server.Closed());
  EXPECT_EQ(s.faults[size_t(Fault::kReset)], 1u);
}

TEST(ServerConnectionTest, APeerThatLeavesBeforeItsDelayedResponseGetsNothing) {
  ServeOptions o = Options();
  o.delay = "1s";
  Server server(o);
  server.Arrive("GET /gone HTTP/1.1\r\n\r\n");
  server.loop().Complete(kSlot, Op::kRecv, 0, {}, false);  // The client closes.
  ServerRunStats s = server.Run();
  EXPECT_EQ(server.Sent(), "");
  EXPECT_TRUE(server.Closed());
  EXPECT_EQ(s.requests_received, 1u);
  EXPECT_EQ(s.requests_answered, 0u);
}

TEST(ServerConnectionTest, ALateCompletionOfAClosedConnectionIsIgnored) {
  Server server(Options());
  server.Arrive("GET /x HTTP/1.1\r\nConnection: close\r\n\r\n");
  server.loop().on_submit = [](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kSend) l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    // After the close, bytes of the old connection still come in: they are stale.
    if (s.op == Op::kClose) l.CompleteStale(s.slot, Op::kRecv, 19, "GET /y HTTP/1.1\r\n\r\n");
  };
  ServerRunStats s = server.Run();
  EXPECT_EQ(s.requests_received, 1u);
  EXPECT_EQ(Occurrences(server.Sent(), "HTTP/1.1 200 OK"), 1u);
}

}  // namespace
}  // namespace uringload::core
