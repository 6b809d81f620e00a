#include "core/link/link_direction.h"

#include <algorithm>

#include "net/base/check.h"
#include "net/base/seeded_random.h"

namespace uringload::core {
namespace {

enum Salt : uint64_t { kLoss = 1, kDuplicate, kReorder, kJitter };

}  // namespace

LinkDirection::LinkDirection(const LinkShape& shape, uint64_t seed, uint32_t capacity)
    : shape_(shape), seed_(seed), fifo_(capacity) {}

double LinkDirection::Draw(uint64_t salt) const {
  return static_cast<double>(SeededRandom(seed_, counters_.received, salt) >> 11) * 0x1.0p-53;
}

LinkFate LinkDirection::Arrive(uint32_t packet, uint32_t bytes, int64_t now_ns, bool blackhole,
                               int* copies) {
  *copies = 0;
  ++counters_.received;
  if (blackhole) {
    ++counters_.blackholed;
    return LinkFate::kBlackholed;
  }
  if (shape_.loss > 0 && Draw(kLoss) < shape_.loss) {
    ++counters_.lost;
    return LinkFate::kLost;
  }
  if (shape_.reorder > 0 && Draw(kReorder) < shape_.reorder) {
    ++counters_.reordered;
    return LinkFate::kSentAtOnce;
  }
  // The entries whose first bit went on the wire by now no longer wait in the queue.
  while (waiting_ < size_ && fifo_[(head_ + waiting_) % fifo_.size()].start_ns <= now_ns) {
    waiting_bytes_ -= fifo_[(head_ + waiting_) % fifo_.size()].bytes;
    ++waiting_;
  }
  int wanted = shape_.duplicate > 0 && Draw(kDuplicate) < shape_.duplicate ? 2 : 1;
  bool full = size_ + wanted > fifo_.size();
  if (shape_.rate_bits_per_second > 0) {
    uint32_t waiting = size_ - waiting_;
    full = full || (shape_.queue_bytes > 0 ? waiting_bytes_ + bytes > shape_.queue_bytes
                                           : waiting + 1 > shape_.queue_packets);
  }
  if (full) {
    ++counters_.queue_dropped;
    return LinkFate::kQueueFull;
  }
  int64_t jitter = 0;
  if (shape_.jitter_ns > 0) {
    jitter = static_cast<int64_t>((Draw(kJitter) * 2 - 1) * static_cast<double>(shape_.jitter_ns));
  }
  for (int copy = 0; copy < wanted; ++copy) {
    int64_t start = now_ns, sent = now_ns;
    if (shape_.rate_bits_per_second > 0) {
      // Its bits take their turn after everything queued before it.
      int64_t wire =
          static_cast<int64_t>(uint64_t{bytes} * 8 * 1'000'000'000 / shape_.rate_bits_per_second);
      start = std::max(now_ns, wire_free_ns_);
      sent = start + wire;
      wire_free_ns_ = sent;
    }
    int64_t due = std::max(sent + shape_.delay_ns + jitter, last_due_ns_);
    last_due_ns_ = due;
    Push(packet, bytes, start, due);
  }
  if (wanted == 2) ++counters_.duplicated;
  *copies = wanted;
  return LinkFate::kQueued;
}

void LinkDirection::Push(uint32_t packet, uint32_t bytes, int64_t start_ns, int64_t due_ns) {
  URINGLOAD_CHECK(size_ < fifo_.size(), "link queue full: %u", size_);
  fifo_[(head_ + size_) % fifo_.size()] =
      Entry{.packet = packet, .bytes = bytes, .start_ns = start_ns, .due_ns = due_ns};
  ++size_;
  if (shape_.rate_bits_per_second > 0) {
    waiting_bytes_ += bytes;
  } else {
    ++waiting_;  // Without a rate nothing waits for the wire.
  }
}

std::optional<uint32_t> LinkDirection::PopDue(int64_t now_ns) {
  if (size_ == 0 || fifo_[head_].due_ns > now_ns) return std::nullopt;
  const Entry& e = fifo_[head_];
  uint32_t packet = e.packet;
  lateness_.Record(static_cast<uint64_t>(now_ns - e.due_ns));
  if (waiting_ == 0) waiting_bytes_ -= e.bytes;  // Due before its wire turn was seen to end.
  head_ = (head_ + 1) % static_cast<uint32_t>(fifo_.size());
  --size_;
  waiting_ = waiting_ > 0 ? waiting_ - 1 : 0;
  return packet;
}

}  // namespace uringload::core
