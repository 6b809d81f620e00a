// The client connection state machine on the fake event loop: every scenario scripted
// completion by completion, on a clock the test moves. No sockets, no sleeps.
#include "core/run/worker.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/testing/worker_test_client.h"
#include "net/testing/fake_event_loop.h"

namespace uringload::core {
namespace {

using test_support::AnswerEverything;
using test_support::Client;
using test_support::FakeEventLoop;
using test_support::kMs;
using test_support::kOk;
using test_support::Op;
using test_support::Options;

uint64_t Count(const RunStats& s, Outcome o) { return s.outcome(o); }

TEST(ClientConnectionTest, KeepAliveServesEveryRequestOnOneConnection) {
  Client client(Options(5, 1));
  AnswerEverything(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 5u);
  EXPECT_EQ(s.connections_opened, 1u);
  EXPECT_EQ(client.loop().Count(Op::kConnect), 1u);
  EXPECT_EQ(client.loop().Count(Op::kSend), 5u);
  EXPECT_EQ(client.loop().Count(Op::kRecv), 1u);  // One multishot receive for all five.
  EXPECT_NE(client.loop().SentOn(0).find("GET /4 HTTP/1.1\r\n"), std::string::npos);
}

TEST(ClientConnectionTest, ConnectFailureIsAConnectErrorWithItsErrno) {
  Client client(Options(3, 1));
  client.loop().on_submit = [](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, -ECONNREFUSED);
  };
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kConnectError), 3u);
  EXPECT_EQ(s.causes[size_t(Outcome::kConnectError)][ECONNREFUSED], 3u);
  EXPECT_EQ(client.loop().Count(Op::kSend), 0u);
  EXPECT_EQ(client.loop().Count(Op::kClose), 3u);  // Each attempt's slot closed.
}

TEST(ClientConnectionTest, ResetMidBodyIsAParseErrorAndAResetBeforeAnyByteIsAReset) {
  Client client(Options(2, 1));
  int request = 0;
  client.loop().on_submit = [&](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op != Op::kSend) return;
    l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    if (request++ == 0) {  // Half a body, then the peer closes.
      std::string half = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
      l.Complete(s.slot, Op::kRecv, static_cast<int>(half.size()), half);
      l.Complete(s.slot, Op::kRecv, 0, {}, false);
    } else {
      l.Complete(s.slot, Op::kRecv, -ECONNRESET, {}, false);
    }
  };
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kParseError), 1u);
  EXPECT_EQ(s.causes[size_t(Outcome::kParseError)][int(ParseFailure::kTruncated)], 1u);
  EXPECT_EQ(Count(s, Outcome::kReset), 1u);
  EXPECT_EQ(s.causes[size_t(Outcome::kReset)][ECONNRESET], 1u);
  EXPECT_EQ(client.loop().Count(Op::kConnect), 2u);  // Reconnected for the second request.
}

TEST(ClientConnectionTest, ReceiveOutOfBuffersIsArmedAgainAndTheResponseCompletes) {
  Client client(Options(1, 1));
  client.loop().on_submit = [](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op == Op::kSend) {
      l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
      l.Complete(s.slot, Op::kRecv, 20, std::string(kOk, 20));
      l.Complete(s.slot, Op::kRecv, -ENOBUFS, {}, false);  // The multishot ended.
    }
    if (s.op == Op::kRecv && l.Count(Op::kRecv) == 2) {  // Armed again: the rest arrives.
      std::string rest = std::string(kOk).substr(20);
      l.Complete(s.slot, Op::kRecv, static_cast<int>(rest.size()), rest);
    }
  };
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 1u);
  EXPECT_EQ(client.loop().Count(Op::kRecv), 2u);
}

// A request nobody answers ends once, as a timeout, and its connection closes. (That a late
// completion of the closed connection never reaches the worker is the loop's contract:
// net/ring_event_loop_contract_test.cc; the simulations throw such completions in throughout.)
TEST(ClientConnectionTest, ARequestNobodyAnswersTimesOutOnce) {
  Client client(Options(1, 1));
  client.loop().on_submit = [](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op == Op::kSend) l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
  };
  RunStats s = client.Run();  // Nobody answers: the clock runs to the 1 s timeout.
  EXPECT_EQ(Count(s, Outcome::kTimeout), 1u);
  EXPECT_EQ(s.completed(), 1u);
  EXPECT_EQ(client.loop().Count(Op::kClose), 1u);
}

TEST(ClientConnectionTest, StopWhileConnectingAbortsAfterTheGracePeriod) {
  RunOptions o = Options(10, 2);
  o.connect_timeout = "10s";  // Longer than the 2 s grace: the abort ends them.
  Client client(o);
  client.loop().on_submit = [&client](FakeEventLoop&, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) client.stop() = true;  // SIGINT arrives; connects hang.
  };
  RunStats s = client.Run();  // 2 s grace on the fake clock, then the abort.
  EXPECT_EQ(s.started, 2u);   // No request started after the stop.
  EXPECT_EQ(Count(s, Outcome::kTimeout), 2u);
  EXPECT_EQ(s.causes[size_t(Outcome::kTimeout)][ECANCELED], 2u);
}

TEST(ClientConnectionTest, ConnectTimeoutIsAConnectErrorWithEtimedout) {
  Client client(Options(1, 1));  // Connects never complete.
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kConnectError), 1u);
  EXPECT_EQ(s.causes[size_t(Outcome::kConnectError)][ETIMEDOUT], 1u);
}

TEST(ClientConnectionTest, NoKeepaliveClosesEvenWhenTheServerKeepsItOpen) {
  RunOptions o = Options(3, 1);
  o.no_keepalive = true;
  Client client(o);
  AnswerEverything(client.loop());  // The response says nothing of closing.
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 3u);
  EXPECT_EQ(client.loop().Count(Op::kConnect), 3u);
  EXPECT_EQ(client.loop().Count(Op::kClose), 3u);
}

TEST(ClientConnectionTest, BytesNobodyAskedForCloseTheConnection) {
  Client client(Options(2, 1));
  AnswerEverything(client.loop(), absl::StrCat(kOk, "HTTP/1.1 200 OK\r\n"));  // Extra bytes.
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 2u);             // Each response is fine...
  EXPECT_EQ(client.loop().Count(Op::kConnect), 2u);  // ...but the connection is not reused.
}

// Checks judge each complete response once: request k gets a 503 (k % 3 == 0), a 200
// without the text (1), or a 200 whose body has the text split across two receives (2).
// Only the last are ok; the others end check_failed with the expectation they missed, and
// every status is counted.
TEST(ClientConnectionTest, ChecksTurnWrongAnswersIntoCheckFailed) {
  RunOptions options = Options(9, 1);
  options.expect_status = "2xx";
  options.expect_body_contains = "items";
  Client client(options);
  int request = 0;
  client.loop().on_submit = [&](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op != Op::kSend) return;
    l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    int k = request++;
    std::string status = k % 3 == 0 ? "503 Busy" : "200 OK";
    std::string body = k % 3 == 1 ? "{\"item\":1}" : "{\"items\":[]}";
    std::string response =
        absl::StrCat("HTTP/1.1 ", status, "\r\nContent-Length: ", body.size(), "\r\n\r\n", body);
    size_t split = response.size() - 8;  // Inside "items".
    l.Complete(s.slot, Op::kRecv, static_cast<int>(split), response.substr(0, split));
    l.Complete(s.slot, Op::kRecv, static_cast<int>(response.size() - split),
               response.substr(split));
  };
  RunStats s = client.Run();
  EXPECT_EQ(Count(s, Outcome::kOk), 3u);
  EXPECT_EQ(Count(s, Outcome::kCheckFailed), 6u);
  EXPECT_EQ(s.causes[size_t(Outcome::kCheckFailed)][size_t(CheckFailure::kStatus)], 3u);
  EXPECT_EQ(s.causes[size_t(Outcome::kCheckFailed)][size_t(CheckFailure::kBodyContains)], 3u);
  EXPECT_EQ(s.status_codes[503], 3u);
  EXPECT_EQ(s.status_codes[200], 6u);
  EXPECT_EQ(s.completed(), 9u);
  EXPECT_EQ(s.connections_opened, 1u);  // A failed check is an answer: the connection stays.
}

}  // namespace
}  // namespace uringload::core
