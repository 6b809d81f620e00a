// How a worker starts. --start-at waits for the planned moment (with --preconnect,
// opening every connection meanwhile); then every connection takes its first request, or in
// the open model waits for the schedule.
#include <time.h>

#include <algorithm>

#include "core/run/worker.h"
#include "net/clock.h"

namespace uringload::core {

// --start-at: ready (ring, buffers, templates); sleeps until the planned start, in steps of
// at most 10 ms so a stop signal still ends the wait promptly, and records how late it woke.
// With --preconnect the wait runs the event loop instead, opening every connection (through
// the connect ramp, with the connect timeout): whatever has not connected by the start goes
// on connecting for its first request, and one that failed connects again for it.
void Worker::WaitForStart() {
  bool preconnect = config_.plan->preconnect;
  if (preconnect) {
    preconnecting_ = true;
    started_ns_ = loop_->Now();
    for (Connection& c : connections_) {
      // A flow user's others connect for their steps.
      if (!flows_.has_value() || !flows_->Secondary(c)) opener_->Request(c);
    }
  }
  for (;;) {
    int64_t now = preconnect ? loop_->Now() : net::MonotonicNanos();
    int64_t left = config_.start_ns - now;
    if (left <= 0 || stop_->load(std::memory_order_relaxed)) break;
    int64_t step = std::min<int64_t>(left, 10'000'000);
    if (preconnect) {
      completions_at_ns_ = now;
      loop_->timers().Advance(now, [this, now](net::TimerNode* node) { OnTimer(node, now); });
      if (absl::Status s = loop_->SubmitAndWait(step, 1); !s.ok()) break;  // Run reports it.
      completions_at_ns_ = loop_->Now();
      DrainCompletions();
      opener_->AdmitQueued();
    } else {
      timespec pause{.tv_sec = step / 1'000'000'000, .tv_nsec = step % 1'000'000'000};
      nanosleep(&pause, nullptr);
    }
  }
  preconnecting_ = false;
  if (stop_->load(std::memory_order_relaxed)) draining_ = true;  // No request starts now.
  int64_t now = preconnect ? loop_->Now() : net::MonotonicNanos();
  stats_->StartedLate(std::max<int64_t>(0, now - config_.start_ns));
}

// Closed model: every connection takes a request and connects (or, opened by --preconnect,
// sends it). Open model: all wait, listed, for the schedule (StartDue).
void Worker::StartAll() {
  started_ns_ = completions_at_ns_ = loop_->Now();
  uint64_t preconnected = 0;
  live_ = static_cast<uint32_t>(connections_.size());
  for (Connection& c : connections_) {
    if (c.state == ConnState::kActive) ++preconnected;
    if (c.state == ConnState::kClosing) continue;  // A failed preconnect: OnClosed goes on.
    if (flows_.has_value() && flows_->Secondary(c)) continue;  // Idle until its user's step.
    if (pacer_.open()) {
      List(c);
      continue;
    }
    PendingRequest request;
    if (!NextRequest(c, &request)) {
      if (flows_.has_value() && flows_->UserOf(c).in_iteration()) continue;  // Its step went on.
      if (c.state == ConnState::kIdle) {
        Retire(c);
      } else {
        Close(c);  // Preconnected (or still connecting) for nothing.
      }
      continue;
    }
    AddRequest(c, request);
    if (c.state == ConnState::kActive) {
      c.driver->Flush(c);
    } else if (c.state == ConnState::kIdle && !Queued(c)) {
      opener_->Request(c);
    }  // Connecting, or queued in the ramp: its connect completion sends the request.
  }
  if (config_.plan->preconnect) stats_->Preconnected(preconnected);
  if (flows_.has_value()) flows_->FlushWakes();
}

}  // namespace uringload::core
