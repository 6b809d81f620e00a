// ProvidedBufferRing: a ring of equal-size receive buffers that the kernel picks from
// (IORING_REGISTER_PBUF_RING), shared by all connections of one worker. liburing 2.3 has no
// io_uring_setup_buf_ring, so the page-aligned ring mapping is made here.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"

namespace uringload::net {

// Buffers for a ring serving `connections`: a quarter as many as connections, rounded up to a
// power of two, at least 64 and at most 32768. Data that arrives while the ring is dry waits
// in its socket (ENOBUFS, re-armed after the batch), so memory follows bytes in flight per
// batch, not connections: ~256-512 B of buffer per connection with kReceiveBufferSize.
uint32_t RecommendedBufferCount(uint32_t connections);
inline constexpr uint32_t kReceiveBufferSize = 1024;

class ProvidedBufferRing {
 public:
  // `entries` must be a power of two <= 32768 (buffer ids are 16-bit).
  static absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> Create(io_uring* ring,
                                                                    uint16_t group_id,
                                                                    uint32_t entries,
                                                                    uint32_t buffer_size);
  ~ProvidedBufferRing();
  ProvidedBufferRing(const ProvidedBufferRing&) = delete;
  ProvidedBufferRing& operator=(const ProvidedBufferRing&) = delete;

  // The `length` received bytes of buffer `id`, as named by a CQE's flags.
  std::string_view Data(uint16_t id, uint32_t length) const {
    return std::string_view(buffers_ + static_cast<size_t>(id) * buffer_size_, length);
  }
  // Hands buffer `id` back; the kernel sees it after Publish().
  void Return(uint16_t id) {
    io_uring_buf_ring_add(ring_, buffers_ + static_cast<size_t>(id) * buffer_size_, buffer_size_,
                          id, mask_, pending_++);
  }
  // Makes all returned buffers visible to the kernel (one store for a batch).
  void Publish() {
    if (pending_ == 0) return;
    io_uring_buf_ring_advance(ring_, pending_);
    pending_ = 0;
  }

 private:
  ProvidedBufferRing() = default;

  io_uring* owner_ = nullptr;
  io_uring_buf_ring* ring_ = nullptr;
  char* buffers_ = nullptr;
  size_t ring_bytes_ = 0;
  size_t buffers_bytes_ = 0;
  uint32_t buffer_size_ = 0;
  int mask_ = 0;
  int pending_ = 0;
  uint16_t group_id_ = 0;
  bool registered_ = false;
};

}  // namespace uringload::net
