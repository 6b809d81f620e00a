#include "core/run/unread_sampler.h"

#include <chrono>
#include <utility>

#include "net/clock.h"
#include "net/ring.h"

namespace uringload::core {

UnreadSampler::UnreadSampler(std::vector<WorkerStats*> workers, absl::Duration batch_window_max)
    : workers_(std::move(workers)),
      meters_(workers_.size(),
              UnreadMeter(absl::ToInt64Nanoseconds(2 * kPeriod + batch_window_max))) {}

void UnreadSampler::Start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
}

void UnreadSampler::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void UnreadSampler::Run() {
  std::unique_lock lock(mutex_);
  auto period = std::chrono::nanoseconds(absl::ToInt64Nanoseconds(kPeriod));
  while (!wake_.wait_for(lock, period, [this] { return stop_; })) SampleAll();
}

// A worker's ring stays mapped until the engine that owns it goes, after Stop(); a finished
// worker's is not read again.
void UnreadSampler::SampleAll() {
  int64_t now = net::MonotonicNanos();
  for (size_t i = 0; i < workers_.size(); ++i) {
    WorkerStats& w = *workers_[i];
    const unsigned* word = w.waiting_work_word();
    if (word == nullptr) continue;
    if (w.finished()) {
      meters_[i].Stop();
    } else {
      uint64_t drains = w.drains();
      meters_[i].Observe(now, net::Ring::WorkWaiting(word), drains);
    }
    w.UnreadMeasured(meters_[i].unread_ns(), meters_[i].longest_ns());
  }
}

}  // namespace uringload::core
