#include "core/run/unread_meter.h"

#include <algorithm>

namespace uringload::core {

void UnreadMeter::Observe(int64_t now_ns, bool waiting, uint64_t drains) {
  if (open_ && waiting && drains == drains_) {
    last_ns_ = now_ns;
    return;
  }
  if (open_) {
    uint64_t stretch = Counted(last_ns_ - start_ns_);
    closed_ns_ += stretch;
    longest_closed_ns_ = std::max(longest_closed_ns_, stretch);
  }
  open_ = waiting;
  start_ns_ = last_ns_ = now_ns;
  drains_ = drains;
}

uint64_t UnreadMeter::longest_ns() const {
  return std::max(longest_closed_ns_, Counted(open_ ? last_ns_ - start_ns_ : 0));
}

}  // namespace uringload::core
