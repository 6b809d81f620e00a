#include "core/run/batch_policy.h"

#include <algorithm>

namespace uringload::core {

BatchPolicy::BatchPolicy(uint32_t pipeline, int64_t window_ns, int64_t window_max_ns)
    : pipeline_(pipeline),
      window_min_ns_(window_ns),
      window_max_ns_(window_max_ns),
      window_ns_(window_ns),
      yield_x16_(std::max<uint32_t>(16, pipeline / 2 * 16)) {}

unsigned BatchPolicy::Target(uint32_t in_flight) const {
  if (window_min_ns_ == 0) return 1;
  if (Sparse(in_flight)) return 1;
  return std::clamp<unsigned>(in_flight / (2 * pipeline_), 1, 64);
}

bool BatchPolicy::Trickling() const {
  return window_min_ns_ != 0 && pipeline_ > 1 && yield_x16_ * 4 < pipeline_ * 16;
}

void BatchPolicy::CountDrain(uint32_t responses) {
  ++drains_;
  responses_ += responses;
  if (drains_ < kYieldWindow) return;
  yield_x16_ = std::max<uint32_t>(16, responses_ * 16 / drains_);
  drains_ = responses_ = 0;
}

// The window stays under a quarter of the mean latency: the requests still queued at the
// server (half of -p at least) keep it busy while the client sleeps.
void BatchPolicy::SetWindow() {
  mean_latency_ns_ = static_cast<int64_t>(latency_sum_ns_ / latencies_);
  window_ns_ = std::clamp(mean_latency_ns_ / 4, window_min_ns_, window_max_ns_);
  latencies_ = 0;
  latency_sum_ns_ = 0;
}

}  // namespace uringload::core
