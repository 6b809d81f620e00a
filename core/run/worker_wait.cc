// How a worker waits for completions. A batch of completions per wait, or for a
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

// Submits what is queued and waits for a batch of completions (see BatchTarget); the sends
// just queued complete inline and count towards it, so it waits for that many more. A peer
// that trickles is slept out instead: a wait would keep the kernel receiving one response at
// a time for as long as the peer writes (docs/performance.md, "Measurements behind the code").
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

// Half of the connections with requests in flight (at most 64): waking per completion costs
// a context switch each. It counts connections, not requests, since one receive may end -p
// of them; a peer that trickles (Trickling) is waited out instead (docs/performance.md,
// "Measurements behind the code").
unsigned Worker::BatchTarget() const {
  if (batch_window_ns_ == 0) return 1;
  return std::clamp<unsigned>(in_flight_ / (2 * config_.plan->pipeline), 1, 64);
}

bool Worker::Trickling() const {
  uint32_t pipeline = config_.plan->pipeline;
  return batch_window_ns_ != 0 && pipeline > 1 && receive_yield_x16_ * 4 < pipeline * 16;
}

// Counts one receive on `c` that ended `responses` responses towards the yield Trickling uses,
// per drain of the socket (a burst read through several buffers is one burst). It also sets
// the window to a quarter of the recent mean latency: the requests still queued at the server
// keep it busy while the client sleeps, and that is the most it adds to a latency
// (docs/performance.md, "Measurements behind the code").
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
