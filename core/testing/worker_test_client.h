// A client Worker over net::FakeEventLoop for unit tests: the plan's URL is never dialled, the
// test scripts every completion and moves the clock.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/run/worker.h"
#include "core/testing/text_counts.h"
#include "net/testing/fake_event_loop.h"
#include "net/tls_event_loop.h"

namespace uringload::core::test_support {

using net::FakeEventLoop;
using net::Op;

constexpr char kOk[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

// One worker over a fake loop, for the plan `options` describes (the URL is never dialled).
class Client {
 public:
  // `start_ns`: --start-at's moment on the fake clock (0: none; the plan's own start_at,
  // wall-clock time, is then not used).
  explicit Client(RunOptions options, int64_t start_ns = 0)
      : plan_(*MakeRunPlan(options)),
        source_(plan_.requests),
        stats_(plan_.targets.size(), plan_.rate.has_value(), plan_.target_of) {
    for (size_t t = 0; t < plan_.targets.size(); ++t) {
      for (size_t a = 0; a < plan_.addresses.size(); ++a) {
        templates_.push_back(
            *proto::RequestTemplate::Build(plan_.RequestFor(t, a), plan_.columns()));
      }
    }
    uint32_t slots = plan_.concurrency * plan_.lanes;  // A flow's users: one per origin.
    auto fake = std::make_unique<FakeEventLoop>(slots);
    loop_ = fake.get();
    // https://: TLS over the fake, as on the ring; the test then scripts ciphertext.
    std::unique_ptr<net::EventLoop> loop = std::move(fake);
    if (plan_.tls != nullptr) {
      loop = std::make_unique<net::TlsEventLoop>(std::move(loop), plan_.tls, slots, plan_.url.host);
    }
    WorkerConfig config{.plan = &plan_,
                        .templates = templates_,
                        .connections = plan_.concurrency,
                        .first_connection = 0,
                        .index = 0,
                        .start_ns = start_ns,
                        .deadline_ns = 0,
                        .wait_for_start = start_ns != 0,
                        .block_size = 1};
    worker_ = std::make_unique<Worker>(config, &source_, &stats_, &stop_, std::move(loop));
  }
  // The fake loop (under TLS for https://: its bytes are then ciphertext).
  FakeEventLoop& loop() { return *loop_; }
  std::atomic<bool>& stop() { return stop_; }
  RunStats Run() {
    EXPECT_TRUE(worker_->Run().ok());
    return stats_.Snapshot();
  }

 private:
  RunPlan plan_;
  std::vector<proto::RequestTemplate> templates_;
  RequestSource source_;
  WorkerStats stats_;
  std::atomic<bool> stop_{false};
  FakeEventLoop* loop_;
  std::unique_ptr<Worker> worker_;
};

inline RunOptions Options(int64_t n, int64_t c) {
  RunOptions o;
  o.url = "http://127.0.0.1:8080/{i}";
  o.requests = n;
  o.concurrency = c;
  o.threads = 1;
  o.timeout = "1s";
  o.connect_timeout = "500ms";
  return o;
}

// A peer that accepts every connection and answers every request with `response`.
inline void AnswerEverything(FakeEventLoop& loop, std::string response = kOk) {
  loop.on_submit = [response](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
    if (s.op == Op::kConnect) l.Complete(s.slot, Op::kConnect, 0);
    if (s.op == Op::kSend) {
      l.Complete(s.slot, Op::kSend, static_cast<int>(s.bytes.size()));
      l.Complete(s.slot, Op::kRecv, static_cast<int>(response.size()), response);
    }
  };
}

}  // namespace uringload::core::test_support
