// How a worker waits for completions: one submit per wait carries every send queued since the
// last; how many completions to wait for, and for how long, is the BatchPolicy's.
#include <algorithm>
#include <cstdint>

#include "core/run/worker.h"

namespace uringload::core {
namespace {

constexpr int64_t kMaxWaitWithTimersNs = 10'000'000;  // Timer wheel resolution in practice.
constexpr int64_t kMaxWaitNs = 100'000'000;           // How fast a stop request is noticed.

}  // namespace

// Submits what is queued and waits for a batch of completions (BatchPolicy); the sends
// just queued complete inline and count towards it, so it waits for that many more. A peer
// that trickles is slept out instead: a wait would keep the kernel receiving one response at
// a time for as long as the peer writes (docs/performance.md, "Measurements behind the code").
// A wait that ends for a due send ends the WakeMargin early; within it the worker polls, as
// it always does with --busy-poll.
absl::Status Worker::SubmitAndWait(int64_t now, unsigned sends) {
  bool for_due = false;
  // --busy-poll: never sleep, so no send or completion waits for a wake-up.
  int64_t budget = config_.plan->busy_poll ? 0 : WaitBudget(now, &for_due);
  polling_ = budget == 0 && (for_due || config_.plan->busy_poll);
  absl::Status status;
  if (batch_.Trickling()) {
    if (budget > batch_.window_ns()) for_due = false;
    budget = std::min(budget, batch_.window_ns());
    status = loop_->SubmitAndSleep(budget);
  } else {
    unsigned target = batch_.Target(in_flight_);
    // Sparse: wake for the first completion, not for this round's sends as well.
    unsigned batch = batch_.Sparse(in_flight_) ? 1 : target + std::min(sends, target);
    if (batch > 1 && budget > batch_.window_ns()) {
      budget = batch_.window_ns();
      for_due = false;
    }
    status = loop_->SubmitAndWait(budget, batch);
  }
  if (!status.ok()) return status;
  // Every completion drained next was ready by now: one clock read serves them all.
  completions_at_ns_ = loop_->Now();
  // Open model: no connection could take a request all through the wait (the list changes
  // only as completions are handled), so each one due by now waited for a connection. The worker
  // does not wake for each due time behind one already waiting, so StartDue alone saw only the
  // first of them.
  if (pacer_.open() && listed_.empty()) late_since_ns_ = completions_at_ns_;
  if (for_due && budget > 0 && completions_at_ns_ >= now + budget) {
    wake_margin_.Observe(completions_at_ns_ - now - budget);
  }
  return absl::OkStatus();
}

int64_t Worker::WaitBudget(int64_t now, bool* for_due) const {
  int64_t wait = loop_->timers().size() > 0 ? kMaxWaitWithTimersNs : kMaxWaitNs;
  if (!draining_ && config_.deadline_ns != 0) {
    wait = std::min(wait, std::max<int64_t>(config_.deadline_ns - now, 0));
  }
  // Wake for the next request of the schedule, a margin early; one already due waits for a
  // connection, and the completion that frees one wakes us anyway.
  int64_t due = pacer_.next_due_ns();
  if (pacer_.open() && !draining_ && due > now && due != RequestPacer::kNever) {
    int64_t until = std::max<int64_t>(due - now - wake_margin_.ns(), 0);
    if (until < wait) {
      wait = until;
      *for_due = true;
    }
  }
  return wait;
}

// Counts one receive on `c` that ended `responses` responses for the batch policy, per drain
// of the socket: a burst read through several buffers is one burst, not a trickle.
void Worker::CountReceiveYield(Connection& c, uint32_t responses, bool more_to_read) {
  responses += c.undrained_responses;
  if (more_to_read) {
    c.undrained_responses = static_cast<uint16_t>(std::min<uint32_t>(responses, UINT16_MAX));
    return;
  }
  c.undrained_responses = 0;
  batch_.CountDrain(responses);
}

}  // namespace uringload::core
