// Worker, part five: how it waits for completions. A batch of completions per wait, or for a
// peer that trickles its pipelined responses, a window slept out; the window follows the
// latency (-p). One submit per wait carries every send queued since the last.
#include <algorithm>
#include <cstdint>

#include "core/run/worker.h"

namespace uringload::core {
namespace {

constexpr int64_t kMaxWaitWithTimersNs = 10'000'000;  // Timer wheel resolution in practice.
constexpr int64_t kMaxWaitNs = 100'000'000;           // How fast a stop request is noticed.

}  // namespace

// Submits what is queued and waits for a batch of completions (see BatchTarget). The `sends`
// just queued complete inline during the submit and their completions count towards the
// wait, so it waits for that many more, up to the target again: waiting for thousands of
// completions at c=10,000 made every batch huge and cost ~25% more CPU per request.
// A peer that trickles (Trickling) is slept out instead: a wait for more completions than
// come ends with the window, and then the kernel runs the receives that gathered until it has
// the completions waited for or none is pending, so it kept reading the sockets nginx kept
// writing, about one response per receive (0.97 receives and 0.35 packets sent per request).
// Sleeping out the window and then taking what is ready reads each socket about once per
// window. Against nginx, -p 16 (2026-12-02, 3 s, 2 rounds): c=100 1.20-1.30 against
// 1.48-1.50 us of CPU per request and 0-5% more requests; c=1000 1.47-1.59 against 2.00 us.
absl::Status Worker::SubmitAndWait(int64_t now, unsigned sends) {
  int64_t budget = WaitBudget(now);
  absl::Status status;
  if (Trickling()) {
    status = loop_->SubmitAndSleep(std::min(budget, wait_window_ns_));
  } else {
    unsigned target = BatchTarget();
    unsigned batch = target + std::min(sends, target);
    if (batch > 1) budget = std::min(budget, wait_window_ns_);
    status = loop_->SubmitAndWait(budget, batch);
  }
  if (!status.ok()) return status;
  // Every completion drained next was ready by now: one clock read serves them all.
  completions_at_ns_ = loop_->Now();
  return absl::OkStatus();
}

int64_t Worker::WaitBudget(int64_t now) const {
  int64_t wait = loop_->timers().size() > 0 ? kMaxWaitWithTimersNs : kMaxWaitNs;
  if (!draining_ && config_.deadline_ns != 0) {
    wait = std::min(wait, std::max<int64_t>(config_.deadline_ns - now, 0));
  }
  // Wake for the next request of the schedule; one already due waits for a connection, and
  // the completion that frees one wakes us anyway.
  int64_t due = pacer_.next_due_ns();
  if (pacer_.open() && !draining_ && due > now && due != RequestPacer::kNever) {
    wait = std::min(wait, due - now);
  }
  return wait;
}

// Waking for every completion costs a context switch each; waiting for half of the
// connections with requests in flight (at most 64), or the batch window, costs ~15% less CPU
// per request at c=100 (measured; a quarter saved ~10%) and can add at most the window to a
// latency. With -p D a connection's receive completes up to D requests at once, so it counts
// connections, not requests: waiting for half of 1,600 pipelined requests' worth of
// completions from 100 connections kept every batch waiting out the window (-p 16 at c=100
// ran at 55% of h2load -m 16's rate). But a server that writes each pipelined response on
// its own (nginx) gives a completion per response, and waiting for half the connections' worth
// then wakes for every few responses. So when the receives have been carrying fewer than p/4
// responses each (Trickling), the worker waits out the window instead. Against nginx, -p 16
// (2026-12-02, alternating): c=100 1.58-1.71 against 2.17-2.28 us of CPU per request and
// 17-21% more requests; c=10 1.64-1.67 against 2.63-2.86 us; -p 8 1.94-1.97 against
// 2.32-2.37 us. A target from the yield itself (in_flight / (4 x yield)) cost `serve` (a
// burst per send, ~p/2 per receive) 2-6% of its requests at -p 16: the threshold leaves such
// servers the target they had.
unsigned Worker::BatchTarget() const {
  if (batch_window_ns_ == 0) return 1;
  return std::clamp<unsigned>(in_flight_ / (2 * config_.plan->pipeline), 1, 64);
}

bool Worker::Trickling() const {
  uint32_t pipeline = config_.plan->pipeline;
  return batch_window_ns_ != 0 && pipeline > 1 && receive_yield_x16_ * 4 < pipeline * 16;
}

// Counts one receive on `c` that ended `responses` responses towards the yield Trickling uses:
// responses per drain of the socket, as a burst read through several buffers (larger responses
// than a 1 KiB classic buffer holds) is one burst, not a trickle. Counted per receive, 1 KiB
// responses at -p 16 against `serve` looked like nginx's trickle and waited out the window:
// 141k requests/s against 2.4M (2026-12-02).
// It also sets the window from the latency of the requests answered meanwhile. A longer wait
// lets more responses gather in each socket, and a receive costs the kernel the same (and an
// ACK back) whether it carries one response or five. Sleeping out the window against nginx,
// -p 16, c=100 (2026-12-02): 200 us 1.28-1.30 us of CPU per request, 300 us 1.20-1.23,
// 400 us 1.20 at the same request rate; 500 us 3% fewer requests, 700 us 15% fewer. The
// window stays under a quarter of the mean latency: the requests still queued at the server
// (half of -p at least, as Refill waits for half to be answered) then keep it busy while the
// client sleeps; that is also the most it may add to a latency.
void Worker::CountReceiveYield(Connection& c, uint32_t responses, bool more_to_read) {
  constexpr uint32_t kYieldWindow = 64;
  responses += c.undrained_responses;
  if (more_to_read) {
    c.undrained_responses = static_cast<uint16_t>(std::min<uint32_t>(responses, UINT16_MAX));
    return;
  }
  c.undrained_responses = 0;
  ++window_receives_;
  window_responses_ += responses;
  if (window_receives_ < kYieldWindow) return;
  receive_yield_x16_ = std::max<uint32_t>(16, window_responses_ * 16 / window_receives_);
  if (window_latencies_ > 0) {
    auto quarter = static_cast<int64_t>(window_latency_ns_ / window_latencies_ / 4);
    wait_window_ns_ = std::clamp(quarter, batch_window_ns_, batch_window_max_ns_);
  }
  window_receives_ = window_responses_ = window_latencies_ = 0;
  window_latency_ns_ = 0;
}

}  // namespace uringload::core
