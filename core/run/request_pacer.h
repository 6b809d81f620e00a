// RequestPacer: which request a worker starts next, and when. Closed model: the next index of
// the shared RequestSource, at once. Open model (-R): worker w of T owns the indexes
// w, w+T, w+2T, … (every index once across workers, no shared counter) and each is due at its
// ArrivalSchedule time: a rate below the thread count still comes out exact (-R 3 -t 8).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "core/run/arrival_schedule.h"
#include "core/run/request_source.h"

namespace uringload::core {

class RequestPacer {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  struct Due {
    uint64_t index = 0;
    int64_t intended_ns = 0;  // Open model only.
  };

  // Closed model.
  RequestPacer(RequestSource* source, uint64_t block_size) : cursor_(source, block_size) {}
  // Open model: indexes below `limit` (none: unbounded), due from `origin_ns` on.
  RequestPacer(const ArrivalSchedule& schedule, uint32_t worker, uint32_t workers,
               std::optional<uint64_t> limit, int64_t origin_ns)
      : cursor_(nullptr, 1),
        schedule_(schedule),
        next_(worker),
        stride_(workers),
        limit_(limit.value_or(std::numeric_limits<uint64_t>::max())),
        origin_ns_(origin_ns) {
    exhausted_ = next_ >= limit_;
  }

  bool open() const { return schedule_.has_value(); }
  bool exhausted() const { return exhausted_; }
  // When the next request is due (<= now: already); kNever when none is left. Closed: 0.
  int64_t next_due_ns() const {
    if (exhausted_) return kNever;
    return open() ? origin_ns_ + schedule_->OffsetNs(next_) : 0;
  }
  // Open model: how many of this pacer's requests were due at or before `now_ns` and not
  // taken (a client that fell behind its schedule, or waited for connections).
  uint64_t Backlog(int64_t now_ns) const {
    if (!open() || exhausted_ || next_due_ns() > now_ns) return 0;
    uint64_t end = std::min(schedule_->DueBy(now_ns - origin_ns_), limit_);
    return end <= next_ ? 0 : (end - next_ + stride_ - 1) / stride_;
  }
  // The next request if it is due at `now_ns`.
  bool Take(int64_t now_ns, Due* due) {
    if (exhausted_) return false;
    if (!open()) {
      if (!cursor_.Next(&due->index)) exhausted_ = true;
      due->intended_ns = 0;
      return !exhausted_;
    }
    int64_t at = next_due_ns();
    if (at > now_ns) return false;
    *due = {.index = next_, .intended_ns = at};
    next_ += stride_;
    exhausted_ = next_ >= limit_ || next_ < stride_;  // The second: wrapped around.
    return true;
  }

 private:
  RequestCursor cursor_;
  // Mutable: reading random arrivals moves their cursors forward (ArrivalSchedule).
  mutable std::optional<ArrivalSchedule> schedule_;
  uint64_t next_ = 0;
  uint64_t stride_ = 1;
  uint64_t limit_ = 0;
  int64_t origin_ns_ = 0;
  bool exhausted_ = false;
};

}  // namespace uringload::core
