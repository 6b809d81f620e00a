#include "net/timer_wheel.h"

namespace uringload::net {

TimerWheel::TimerWheel(int64_t now_ns) : slots_(kSlots), current_tick_(now_ns / kTickNs) {
  for (TimerNode& head : slots_) head.prev = head.next = &head;
}

void TimerWheel::Schedule(TimerNode* node, int64_t deadline_ns) {
  if (node->scheduled()) Unlink(node);
  node->deadline_ns = deadline_ns;
  // A deadline already past lands in the current slot and fires on the next Advance.
  int64_t tick = std::max(deadline_ns / kTickNs, current_tick_);
  TimerNode& head = slots_[static_cast<size_t>(tick) & (kSlots - 1)];
  node->next = &head;
  node->prev = head.prev;
  head.prev->next = node;
  head.prev = node;
  ++size_;
}

int64_t TimerWheel::EarliestWithin(int64_t now_ns, int64_t within_ns) const {
  int64_t earliest = now_ns + within_ns;
  if (size_ == 0) return earliest;
  int64_t last = std::min(earliest / kTickNs, current_tick_ + static_cast<int64_t>(kSlots) - 1);
  for (int64_t tick = current_tick_; tick <= last; ++tick) {
    const TimerNode& head = slots_[static_cast<size_t>(tick) & (kSlots - 1)];
    for (const TimerNode* node = head.next; node != &head; node = node->next) {
      earliest = std::min(earliest, node->deadline_ns);
    }
  }
  return earliest;
}

void TimerWheel::Cancel(TimerNode* node) {
  if (node->scheduled()) Unlink(node);
}

void TimerWheel::Move(TimerNode* node, TimerNode* list) {
  node->prev->next = node->next;
  node->next->prev = node->prev;
  node->next = list;
  node->prev = list->prev;
  list->prev->next = node;
  list->prev = node;
}

void TimerWheel::Unlink(TimerNode* node) {
  node->prev->next = node->next;
  node->next->prev = node->prev;
  node->prev = node->next = nullptr;
  --size_;
}

}  // namespace uringload::net
