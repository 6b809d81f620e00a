// LinkDirection: one direction of the emulated link as pure logic (no I/O, a seeded stream of
// draws): each packet that enters is lost, dropped by a full queue or a blackhole, sent at
// once (reordered), or queued until it is due: after its turn on the rate-capped wire and the
// one-way delay with jitter. Due times never go backwards (order is kept), so the queue is a
// FIFO and the loop needs one timer per direction, for its head.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/latency_histogram.h"
#include "core/link/link_plan.h"

namespace uringload::core {

enum class LinkFate { kQueued, kSentAtOnce, kLost, kQueueFull, kBlackholed };

struct LinkCounters {
  uint64_t received = 0;   // Packets that entered.
  uint64_t forwarded = 0;  // Packets that left (duplicates included).
  uint64_t bytes_forwarded = 0;
  uint64_t lost = 0;           // Drawn by --loss.
  uint64_t queue_dropped = 0;  // The rate's queue was full (drop-tail).
  uint64_t blackholed = 0;
  uint64_t duplicated = 0;    // Extra copies sent.
  uint64_t reordered = 0;     // Sent at once, ahead of the delayed ones.
  uint64_t write_failed = 0;  // The other side's device refused it (its queue full, or down).
  uint64_t unsent = 0;        // Still queued when the link stopped.
  // Every packet that entered is forwarded (its duplicate too) or counted once otherwise.
  bool AddsUp() const {
    return received + duplicated ==
           forwarded + lost + queue_dropped + blackholed + write_failed + unsent;
  }
};

class LinkDirection {
 public:
  // `capacity`: the most packets queued at once (the loop's buffers, twice for duplicates).
  LinkDirection(const LinkShape& shape, uint64_t seed, uint32_t capacity);

  // Packet `packet` of `bytes` entered at now_ns. kQueued: it is in the FIFO, twice when
  // `*copies` says 2 (a duplicate); kSentAtOnce: the caller writes it now.
  LinkFate Arrive(uint32_t packet, uint32_t bytes, int64_t now_ns, bool blackhole, int* copies);
  // When the head is due; INT64_MAX when nothing is queued.
  int64_t NextDue() const { return size_ == 0 ? INT64_MAX : fifo_[head_].due_ns; }
  // The head's packet, removed, if it is due by now_ns; how late it is goes into lateness().
  std::optional<uint32_t> PopDue(int64_t now_ns);
  // Counts a packet written (the caller's write completed).
  void Forwarded(uint32_t bytes) {
    ++counters_.forwarded;
    counters_.bytes_forwarded += bytes;
  }
  void WriteFailed() { ++counters_.write_failed; }
  // The counts, with what is still queued as unsent.
  LinkCounters Final() const {
    LinkCounters c = counters_;
    c.unsent = size_;
    return c;
  }
  const LinkCounters& counters() const { return counters_; }
  // How long after its due time each queued packet was taken out to be written: the link's
  // own error in the delay it adds (the machine waking it late). Sent-at-once packets are not
  // in it.
  HistogramSnapshot Lateness() const { return lateness_.Snapshot(); }
  uint32_t queued() const { return size_; }

 private:
  struct Entry {
    uint32_t packet;
    uint32_t bytes;
    int64_t start_ns;  // When its first bit goes on the wire: until then it waits in the queue.
    int64_t due_ns;
  };
  double Draw(uint64_t salt) const;  // Uniform in [0, 1) for this arrival.
  void Push(uint32_t packet, uint32_t bytes, int64_t start_ns, int64_t due_ns);

  LinkShape shape_;
  uint64_t seed_;
  std::vector<Entry> fifo_;  // A ring: head_, then size_ entries.
  uint32_t head_ = 0;
  uint32_t size_ = 0;
  // The entries from waiting_ (an offset from head_) on are still waiting for the wire (the
  // one being sent is not: a queue of N holds N besides it).
  uint32_t waiting_ = 0;
  uint64_t waiting_bytes_ = 0;
  int64_t wire_free_ns_ = 0;  // When the wire has sent everything queued.
  int64_t last_due_ns_ = 0;
  LinkCounters counters_;
  LatencyHistogram lateness_;
};

}  // namespace uringload::core
