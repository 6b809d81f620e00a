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

// How many receive buffers of what size, and how receives fill them.
struct ReceiveBufferLayout {
  uint32_t count = 64;  // A power of two <= 32768 (buffer ids are 16-bit).
  uint32_t size = 1024;
  // Receives fill a buffer one after another, each from where the last one ended
  // (IOU_PBUF_RING_INC, Linux 6.12); otherwise each receive takes a whole buffer.
  bool incremental = false;
};

// Buffers for a ring serving `connections`: a quarter of a KiB per connection, rounded up to a
// power of two, at least 64 KiB and at most 32 MiB. Data that arrives while the ring is dry
// waits in its socket (ENOBUFS, re-armed after the batch), so memory follows bytes in flight
// per batch, not connections. Classic: 1 KiB buffers, so a receive reads at most 1 KiB.
ReceiveBufferLayout ClassicReceiveBuffers(uint32_t connections);
// Incremental: the same bytes, at least 1 MiB, in 32 KiB buffers, so one receive reads up
// to 32 KiB and small ones pack one after another (docs/performance.md, "Measurements behind the
// code").
ReceiveBufferLayout IncrementalReceiveBuffers(uint32_t connections);

class ProvidedBufferRing {
 public:
  // Fails when the kernel refuses the layout (incremental before Linux 6.12: EINVAL).
  static absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> Create(
      io_uring* ring, uint16_t group_id, const ReceiveBufferLayout& layout);
  ~ProvidedBufferRing();
  ProvidedBufferRing(const ProvidedBufferRing&) = delete;
  ProvidedBufferRing& operator=(const ProvidedBufferRing&) = delete;

  struct Received {
    std::string_view data;
    bool done;  // The kernel will put nothing more in this buffer: Return it once read.
  };
  // What a receive completion put in buffer `id`: `length` bytes at its start, or, incremental,
  // where the last completion of that buffer ended (`cqe_flags` say whether more will come).
  // Every completion that names a buffer must be taken, read or not, in the order of the CQ.
  Received Take(uint16_t id, uint32_t length, uint32_t cqe_flags) {
    char* start = buffers_ + static_cast<size_t>(id) * layout_.size;
    if (!layout_.incremental) return {std::string_view(start, length), true};
    uint32_t& at = offsets_[id];
    Received r{std::string_view(start + at, length), (cqe_flags & kCqeBufferMore) == 0};
    at += length;
    return r;
  }
  // Hands buffer `id` back; the kernel sees it after Publish().
  void Return(uint16_t id) {
    if (layout_.incremental) offsets_[id] = 0;
    io_uring_buf_ring_add(ring_, buffers_ + static_cast<size_t>(id) * layout_.size, layout_.size,
                          id, mask_, pending_++);
  }
  // Makes all returned buffers visible to the kernel (one store for a batch).
  void Publish() {
    if (pending_ == 0) return;
    io_uring_buf_ring_advance(ring_, pending_);
    pending_ = 0;
  }
  const ReceiveBufferLayout& layout() const { return layout_; }

 private:
  // IORING_CQE_F_BUF_MORE (Linux 6.12; liburing 2.3's headers predate it).
  static constexpr uint32_t kCqeBufferMore = 1U << 4;

  ProvidedBufferRing() = default;

  io_uring* owner_ = nullptr;
  io_uring_buf_ring* ring_ = nullptr;
  char* buffers_ = nullptr;
  size_t ring_bytes_ = 0;
  size_t buffers_bytes_ = 0;
  ReceiveBufferLayout layout_;
  std::unique_ptr<uint32_t[]> offsets_;  // Incremental: bytes of each buffer already received.
  int mask_ = 0;
  int pending_ = 0;
  uint16_t group_id_ = 0;
  bool registered_ = false;
};

}  // namespace uringload::net
