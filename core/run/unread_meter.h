// UnreadMeter: from samples of one worker's ring taken by another thread, the time completions
// (responses received, mostly) waited for the worker to take them: a stretch in which every
// sample found work waiting and the worker drained nothing in between. Only stretches longer
// than a threshold count: a worker that is there comes back within a loop or a batch window,
// and one away longer left responses unread in its sockets, adding to their latency. It sees
// what run-queue delay cannot: the hypervisor's stolen time, interrupts, a loop that ran long.
#pragma once

#include <cstdint>

namespace uringload::core {

class UnreadMeter {
 public:
  explicit UnreadMeter(int64_t threshold_ns) : threshold_ns_(threshold_ns) {}
  // A sample at `now_ns` (monotonic): whether completion work waited for the worker, and how
  // many times the worker has drained its completions so far.
  void Observe(int64_t now_ns, bool waiting, uint64_t drains);
  // The worker stopped: an open stretch is dropped (its end is unknown, and a finished
  // worker's ring is not read again).
  void Stop() { open_ = false; }
  // The stretches over the threshold so far (an open one up to its last sample).
  uint64_t unread_ns() const { return closed_ns_ + Counted(open_ ? last_ns_ - start_ns_ : 0); }
  uint64_t longest_ns() const;

 private:
  uint64_t Counted(int64_t stretch_ns) const {
    return stretch_ns > threshold_ns_ ? static_cast<uint64_t>(stretch_ns) : 0;
  }
  int64_t threshold_ns_;
  bool open_ = false;
  int64_t start_ns_ = 0;  // The open stretch's first sample,
  int64_t last_ns_ = 0;   // its latest,
  uint64_t drains_ = 0;   // and the drain count all of them saw.
  uint64_t closed_ns_ = 0;
  uint64_t longest_closed_ns_ = 0;
};

}  // namespace uringload::core
