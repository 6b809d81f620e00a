// Pipelining, the open model, targets and the warmup, on the fake event loop: exact counts,
// the order of responses, and every request in flight on a broken connection accounted for.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "core/testing/worker_test_client.h"

namespace uringload::core {
namespace {

using test_support::Occurrences;

using test_support::AnswerEverything;
using test_support::Client;
using test_support::FakeEventLoop;
using test_support::kMs;
using test_support::kOk;
using test_support::Op;
using test_support::Options;

// A peer that answers each send with one response per request in it, all in one receive.
void AnswerEachRequest(FakeEventLoop& loop, const std::string& response = kOk) {
  loop.on_submit = [response](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op == Op::kSend) {
      l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
      std::string answers;
      for (size_t i = 0; i < Occurrences(s.bytes, "GET "); ++i) answers += response;
      l.Complete(s.slot, Op::kRecv, static_cast<int>(answers.size()), answers);
    }
  };
}

// A peer that answers each send with one burst that arrives in 30-byte receives, each but the
// last leaving bytes in the socket (a burst larger than a receive buffer).
void AnswerEachRequestInPieces(FakeEventLoop& loop) {
  loop.on_submit = [](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op != Op::kSend) return;
    l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    std::string answers;
    for (size_t i = 0; i < Occurrences(s.bytes, "GET "); ++i) answers += kOk;
    for (size_t at = 0; at < answers.size(); at += 30) {
      std::string piece = answers.substr(at, 30);
      l.Complete(s.slot, Op::kRecv, static_cast<int>(piece.size()), piece, true,
                 at + 30 < answers.size());
    }
  };
}

// A peer that answers each request in a receive of its own (nginx: a writev per response).
void AnswerEachRequestOnItsOwn(FakeEventLoop& loop) {
  loop.on_submit = [](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op != Op::kSend) return;
    l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    for (size_t i = 0; i < Occurrences(s.bytes, "GET "); ++i) {
      l.Complete(s.slot, Op::kRecv, static_cast<int>(std::string(kOk).size()), kOk);
    }
  };
}

TEST(PipelineTest, SendsDRequestsBackToBackAndMatchesResponsesInOrder) {
  RunOptions o = Options(20, 1);
  o.pipeline = 4;
  Client client(o);
  AnswerEachRequest(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 20u);
  EXPECT_EQ(s.started, 20u);
  EXPECT_EQ(client.loop().Count(Op::kConnect), 1u);
  // The first send carries 4 requests; each later one the 4 the last answers made room for.
  EXPECT_EQ(Occurrences(client.loop().submitted()[2].bytes, "GET "), 4u);
  EXPECT_EQ(client.loop().Count(Op::kSend), 5u);
  std::string sent = client.loop().SentOn(0);
  for (int i = 0; i < 20; ++i) {
    EXPECT_NE(sent.find("GET /" + std::to_string(i) + " "), std::string::npos) << i;
  }
}

// A peer that answers one request per receive: the client refills once half of -p is
// answered, in bursts of D/2, not one request per response.
TEST(PipelineTest, RefillsInBurstsOfHalfTheDepth) {
  RunOptions o = Options(16, 1);
  o.pipeline = 8;
  Client client(o);
  std::vector<std::string> sends;
  client.loop().on_submit = [&](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op != Op::kSend) return;
    sends.push_back(s.bytes);
    l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    for (size_t i = 0; i < Occurrences(s.bytes, "GET "); ++i) {
      l.Complete(s.slot, Op::kRecv, static_cast<int>(std::string(kOk).size()), kOk);
    }
  };
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 16u);
  // 8, then 4 when 4 are answered, then 4 again: 16 requests in three sends.
  ASSERT_EQ(sends.size(), 3u);
  EXPECT_EQ(Occurrences(sends[0], "GET "), 8u);
  EXPECT_EQ(Occurrences(sends[1], "GET "), 4u);
  EXPECT_EQ(Occurrences(sends[2], "GET "), 4u);
}

// The wait with -p: a peer that answers each pipelined request in its own receive (nginx's
// one writev per response) makes the worker sleep out the batch window once 64 receives have
// shown it; a peer that answers a burst in one receive (serve),
// or in several that each leave bytes behind but the last, keeps the per-connection target.
TEST(PipelineTest, WaitsOutTheWindowOnlyForAPeerThatAnswersOneResponsePerReceive) {
  for (int peer : {0, 1, 2}) {
    bool one_per_receive = peer == 0;
    RunOptions o = Options(400, 2);
    o.pipeline = 16;
    Client client(o);
    if (peer == 0) AnswerEachRequestOnItsOwn(client.loop());
    if (peer == 1) AnswerEachRequest(client.loop());
    if (peer == 2) AnswerEachRequestInPieces(client.loop());
    RunStats s = client.Run();
    EXPECT_EQ(s.outcome(Outcome::kOk), 400u) << peer;
    const std::vector<unsigned>& targets = client.loop().wait_targets();
    ASSERT_GT(targets.size(), 10u);
    // A sleep is also recorded as a wait for 0 completions (FakeEventLoop::SubmitAndSleep).
    size_t slept = client.loop().sleeps().size();
    if (one_per_receive) {
      EXPECT_NE(targets.front(), 0u);  // The yield is not known yet: a wait.
      EXPECT_GT(slept, targets.size() / 2);
      EXPECT_EQ(targets[targets.size() - 2], 0u);
    } else {
      EXPECT_EQ(slept, 0u) << peer;
    }
  }
}

// With -p the window follows a quarter of the mean latency of recent responses: at least
// 200 us, at most 400 us by default, and just what --batch-window says when it is given. The
// trickling peer here is slept out, so the window is each sleep's length.
TEST(PipelineTest, TheWindowFollowsAQuarterOfTheLatency) {
  struct Case {
    std::string window;
    int64_t latency_ns;
    int64_t want_ns;
  };
  for (const Case& k : {Case{"auto", kMs, 250'000}, Case{"auto", 8 * kMs, 400'000},
                        Case{"auto", kMs / 2, 200'000}, Case{"300us", 8 * kMs, 300'000}}) {
    RunOptions o = Options(2000, 2);
    o.pipeline = 16;
    o.batch_window = k.window;
    Client client(o);
    AnswerEachRequestOnItsOwn(client.loop());
    // Every answer arrives latency_ns after the submit that sent its request.
    client.loop().on_wait = [&k](FakeEventLoop& l) { l.Advance(k.latency_ns); };
    RunStats s = client.Run();
    EXPECT_EQ(s.outcome(Outcome::kOk), 2000u) << k.window << " " << k.latency_ns;
    const std::vector<int64_t>& sleeps = client.loop().sleeps();
    ASSERT_GT(sleeps.size(), 10u) << k.window << " " << k.latency_ns;
    size_t at_want = 0;
    for (int64_t sleep : sleeps) {
      EXPECT_LE(sleep, std::max<int64_t>(k.want_ns, 200'000)) << k.window << " " << k.latency_ns;
      at_want += sleep == k.want_ns;
    }
    EXPECT_GT(at_want, sleeps.size() / 2) << k.window << " " << k.latency_ns;
  }
}

TEST(PipelineTest, AResetEndsEveryRequestInFlightOnce) {
  RunOptions o = Options(3, 1);
  o.pipeline = 3;
  Client client(o);
  client.loop().on_submit = [](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op == Op::kSend) {
      l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
      l.Complete(s.slot, Op::kRecv, -ECONNRESET);
    }
  };
  RunStats s = client.Run();
  EXPECT_EQ(s.started, 3u);
  EXPECT_EQ(s.outcome(Outcome::kReset), 3u);
  EXPECT_EQ(s.completed(), 3u);
}

TEST(PipelineTest, RequestsBehindAClosingResponseAreSentAgainOnANewConnection) {
  RunOptions o = Options(4, 1);
  o.pipeline = 4;
  Client client(o);
  const std::string closing = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
  int sends = 0;
  client.loop().on_submit = [&](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op != Op::kSend) return;
    l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
    // First connection: one answer, then the server says it closes (like nginx after
    // keepalive_requests); the three behind it were never answered.
    std::string answer = ++sends == 1 ? std::string(kOk) + closing : std::string(kOk) + kOk;
    l.Complete(s.slot, Op::kRecv, static_cast<int>(answer.size()), answer);
  };
  RunStats s = client.Run();
  EXPECT_EQ(s.started, 4u);
  EXPECT_EQ(s.outcome(Outcome::kOk), 4u);
  EXPECT_EQ(s.completed(), 4u);
  EXPECT_EQ(client.loop().Count(Op::kConnect), 2u);
}

TEST(OpenModelTest, StartsRequestsOnTheScheduleNotAsFastAsAnswered) {
  RunOptions o = Options(5, 2);
  o.rate = "10";  // One every 100 ms.
  Client client(o);
  std::vector<int64_t> send_times;
  client.loop().on_submit = [&](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op == Op::kSend) {
      send_times.push_back(l.Now());
      l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
      l.Complete(s.slot, Op::kRecv, static_cast<int>(sizeof(kOk) - 1), kOk);
    }
  };
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 5u);
  EXPECT_EQ(s.late_starts, 0u);
  ASSERT_EQ(send_times.size(), 5u);
  for (size_t i = 1; i < send_times.size(); ++i) {
    EXPECT_NEAR(send_times[i] - send_times[0], static_cast<int64_t>(i) * 100 * kMs, 2 * kMs) << i;
  }
  EXPECT_EQ(client.loop().Count(Op::kConnect), 1u);  // An idle connection is reused.
}

TEST(OpenModelTest, ARequestDueWhileEveryConnectionIsBusyStartsLateAndCountsTheWait) {
  RunOptions o = Options(3, 1);
  o.rate = "100";  // Every 10 ms, but the one connection is busy for 50 ms per request.
  Client client(o);
  // Each response comes 50 ms after its request: the loop's clock moves only as it waits.
  int64_t answer_at = 0;
  client.loop().on_submit = [&](FakeEventLoop& l, const FakeEventLoop::Submitted& sub) {
    if (sub.op == Op::kConnect) l.Complete(sub.slot, Op::kConnect, 0);
    if (sub.op == Op::kSend) {
      l.Complete(sub.slot, Op::kSend, static_cast<int>(sub.bytes.size()));
      answer_at = l.Now() + 50 * kMs;
    }
  };
  client.loop().on_wait = [&](FakeEventLoop& l) {
    if (answer_at != 0 && l.Now() >= answer_at) {
      answer_at = 0;
      l.Complete(0, Op::kRecv, static_cast<int>(sizeof(kOk) - 1), kOk);
    }
  };
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 3u);
  EXPECT_EQ(s.late_starts, 2u);
  // The third was due at 20 ms and sent at ~100 ms: corrected ~130 ms, uncorrected ~50 ms.
  EXPECT_GE(s.latency.max, 125 * kMs);
  EXPECT_LE(s.latency_uncorrected.max, 55 * kMs);
}

// Two requests in flight (-p 2) take the first two due; the next two fall due while both are
// busy. The worker does not wake for the fourth's due time (the third waits before it), and the
// answers come in the middle of a wait: both waited for the connection, so both are late
// starts and neither is the client's schedule lag.
TEST(OpenModelTest, RequestsDueWhileTheWorkerSleptOnBusyConnectionsWaitedForThem) {
  RunOptions o = Options(4, 1);
  o.rate = "40";  // Due at 0, 25, 50 and 75 ms; the first two are answered together at 78 ms.
  o.pipeline = 2;
  Client client(o);
  uint32_t unanswered = 0;
  int64_t first_send = -1;
  client.loop().on_submit = [&](FakeEventLoop& l, const FakeEventLoop::Submitted& sub) {
    if (sub.op == Op::kConnect) l.Complete(sub.slot, Op::kConnect, 0);
    if (sub.op != Op::kSend) return;
    l.Complete(sub.slot, Op::kSend, static_cast<int>(sub.bytes.size()));
    if (first_send < 0) first_send = l.Now();
    size_t requests = Occurrences(sub.bytes, "GET ");
    if (l.Now() < first_send + 50 * kMs) {
      unanswered += static_cast<uint32_t>(requests);
      return;
    }
    std::string answers;
    for (size_t i = 0; i < requests; ++i) answers += kOk;
    l.Complete(sub.slot, Op::kRecv, static_cast<int>(answers.size()), answers);
  };
  client.loop().on_wait = [&](FakeEventLoop& l) {
    int64_t answer_at = first_send + 78 * kMs;
    if (unanswered == 2 && l.Now() + l.wait_timeouts().back() >= answer_at) {
      l.Advance(answer_at - l.Now());  // The wait ends early, when the answers arrive.
      unanswered = 0;
      std::string answers = std::string(kOk) + kOk;
      l.Complete(0, Op::kRecv, static_cast<int>(answers.size()), answers);
    }
  };
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 4u);
  EXPECT_EQ(s.late_starts, 2u);
  // Only the second is the client's to keep: the first waited for its connection to open.
  EXPECT_EQ(s.generator.schedule_lag.count, 1u);
  EXPECT_LT(s.generator.schedule_lag.max, static_cast<uint64_t>(kMs));
}

TEST(TargetsTest, RoundRobinOverTargetsWithPerTargetCounts) {
  RunOptions o = Options(6, 1);
  o.url.clear();
  o.targets_file = ::testing::TempDir() + "/targets.txt";
  FILE* f = fopen(o.targets_file->c_str(), "w");
  fputs(
      "# three targets\nGET http://127.0.0.1:8080/a/{i}\n\nHEAD http://127.0.0.1:8080/b\n"
      "GET http://127.0.0.1:8080/c?n={i}\n",
      f);
  fclose(f);
  Client client(o);
  AnswerEverything(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(s.outcome(Outcome::kOk), 6u);
  EXPECT_EQ(s.target_ok, (std::vector<uint64_t>{2, 2, 2}));
  std::string sent = client.loop().SentOn(0);
  // Index k sends target k mod 3; {i} is the request index, unique across targets.
  for (const char* request : {"GET /a/0 ", "GET /a/3 ", "GET /c?n=2 ", "GET /c?n=5 "}) {
    EXPECT_EQ(Occurrences(sent, request), 1u) << request;
  }
  EXPECT_EQ(Occurrences(sent, "GET /a/"), 2u);
  EXPECT_EQ(Occurrences(sent, "GET /c?n="), 2u);
  EXPECT_EQ(Occurrences(sent, "HEAD /b "), 2u);
}

TEST(WarmupTest, RequestsAndBytesInTheWarmupAreSentButNotMeasured) {
  RunOptions o = Options(10, 1);
  o.rate = "10";  // Due at 0, 100, …, 900 ms; the first three within the 250 ms warmup.
  o.warmup = "250ms";
  Client client(o);
  AnswerEverything(client.loop());
  RunStats s = client.Run();
  EXPECT_EQ(s.warmup_started, 3u);
  EXPECT_EQ(s.warmup_completed, 3u);
  EXPECT_EQ(s.started, 7u);
  EXPECT_EQ(s.outcome(Outcome::kOk), 7u);
  EXPECT_EQ(client.loop().Count(Op::kSend), 10u);
  // The bytes, like the requests, count from the end of the warmup: the rate over the
  // measured time is then right.
  EXPECT_EQ(s.bytes_sent * 10, client.loop().SentOn(0).size() * 7);
  EXPECT_EQ(s.bytes_received, 7 * std::string(kOk).size());
}

}  // namespace
}  // namespace uringload::core
