// ConnectRamp: admits at most N connects in flight per worker; the others wait in FIFO order.
// Opening 60,000 connections at once overflows SYN and accept queues (retransmits cost whole
// seconds); a bounded ramp opens them as fast as the target accepts them.
#pragma once

#include <cstdint>
#include <vector>

namespace uringload::core {

class ConnectRamp {
 public:
  ConnectRamp(uint32_t max_in_flight, uint32_t capacity)
      : max_in_flight_(max_in_flight), queue_(capacity) {}

  // Takes a place for a connect now, or returns false (then Enqueue it).
  bool TryAdmit() {
    if (in_flight_ >= max_in_flight_) return false;
    ++in_flight_;
    return true;
  }
  // Each slot is queued at most once at a time, so `capacity` entries always suffice.
  void Enqueue(uint32_t slot) {
    queue_[(head_ + size_) % queue_.size()] = slot;
    ++size_;
  }
  // A connect ended (connected, failed or timed out).
  void Release() { --in_flight_; }
  // The next queued slot when a place is free (the place is taken).
  bool PopAdmitted(uint32_t* slot) {
    if (size_ == 0 || in_flight_ >= max_in_flight_) return false;
    *slot = queue_[head_];
    head_ = (head_ + 1) % queue_.size();
    --size_;
    ++in_flight_;
    return true;
  }
  uint32_t in_flight() const { return in_flight_; }
  uint32_t queued() const { return size_; }

 private:
  uint32_t max_in_flight_;
  uint32_t in_flight_ = 0;
  std::vector<uint32_t> queue_;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace uringload::core
