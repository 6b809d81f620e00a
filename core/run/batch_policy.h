// BatchPolicy: how long a worker waits and for how many completions, learnt from what its
// receives carry. Waking per completion costs a context switch each, so a worker waits for a
// batch: half of the connections with requests in flight (at most 64), or the batch window.
// With -p, a server that writes each pipelined response on its own (nginx) makes a receive
// carry about one response; the worker then sleeps out the window instead (Trickling), and
// the window follows a quarter of the recent mean latency. No I/O: the worker reports drains
// and latencies and asks; the measurements behind each number are in docs/performance.md
// ("Measurements behind the code").
#pragma once

#include <cstdint>

namespace uringload::core {

class BatchPolicy {
 public:
  // `window_ns`..`window_max_ns`: RunPlan::batch_window and batch_window_max (0: no batching).
  BatchPolicy(uint32_t pipeline, int64_t window_ns, int64_t window_max_ns);

  // Completions to wait for with `in_flight` requests started and unanswered: half of the
  // connections that carry them, counting -p requests per connection, 1 to 64; 1 when Sparse.
  unsigned Target(uint32_t in_flight) const;
  // Less than one completion is expected within the window (in_flight x window under the
  // mean latency, Little's law): over a long round trip a wait for a batch would only time
  // out, costing a wake-up per window (41 against 16 us of CPU per request at a 10 ms round
  // trip, docs/performance.md).
  bool Sparse(uint32_t in_flight) const {
    return window_min_ns_ != 0 && int64_t{in_flight} * window_ns_ < mean_latency_ns_;
  }
  // The peer answers about one response per receive (fewer than p/4): sleep, do not wait.
  bool Trickling() const;
  // How long the worker may wait (or sleep) for a batch now.
  int64_t window_ns() const { return window_ns_; }

  // One drain of a socket ended `responses` responses (a burst read through several buffers
  // is one drain). Every kYieldWindow drains the yield is set anew.
  void CountDrain(uint32_t responses);
  // An answered request's latency from its send. Every kLatencyWindow of them the mean
  // latency and the window are set anew.
  void CountLatency(int64_t latency_ns) {
    latency_sum_ns_ += static_cast<uint64_t>(latency_ns);
    if (++latencies_ == kLatencyWindow) SetWindow();
  }

  static constexpr uint32_t kYieldWindow = 64;
  static constexpr uint32_t kLatencyWindow = 64;

 private:
  void SetWindow();

  uint32_t pipeline_;
  int64_t window_min_ns_;
  int64_t window_max_ns_;
  int64_t window_ns_;  // Between the two.
  // Responses per drain, x16, over the last kYieldWindow drains; starts at p/2, what a server
  // answering each burst with one send gives.
  uint32_t yield_x16_;
  uint32_t drains_ = 0;
  uint32_t responses_ = 0;
  uint32_t latencies_ = 0;       // Answered requests since the last SetWindow,
  uint64_t latency_sum_ns_ = 0;  // and the sum of their latencies.
  int64_t mean_latency_ns_ = 0;  // Over the last kLatencyWindow; 0 before.
};

}  // namespace uringload::core
