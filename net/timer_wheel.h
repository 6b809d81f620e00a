// TimerWheel: hashed timing wheel over intrusive nodes (no allocation). One node per
// connection; Schedule/Cancel are O(1), Advance costs one step per elapsed tick. Deadlines
// further out than one revolution stay in their slot until their own revolution comes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace uringload::net {

struct TimerNode {
  TimerNode* prev = nullptr;
  TimerNode* next = nullptr;
  int64_t deadline_ns = 0;
  uint32_t owner = 0;  // The caller's name for what this timer belongs to.
  bool scheduled() const { return prev != nullptr; }
};

class TimerWheel {
 public:
  static constexpr int64_t kTickNs = 1'000'000;  // 1 ms.
  static constexpr size_t kSlots = 4096;         // ~4 s per revolution.

  explicit TimerWheel(int64_t now_ns);
  TimerWheel(const TimerWheel&) = delete;
  TimerWheel& operator=(const TimerWheel&) = delete;

  void Schedule(TimerNode* node, int64_t deadline_ns);
  void Cancel(TimerNode* node);
  size_t size() const { return size_; }

  // The earliest deadline before now_ns + within_ns, or now_ns + within_ns if none is: for
  // how long a loop may sleep. Looks only at the slots of that span (a few for a short one).
  int64_t EarliestWithin(int64_t now_ns, int64_t within_ns) const;

  // Expires every node whose deadline is <= now_ns, calling on_expire(TimerNode*) after
  // unlinking it. The callback may schedule or cancel any node, this one and the other due
  // ones included: a slot's due nodes move to a list of their own first, which Cancel unlinks
  // from as from a slot. A node scheduled again for a past deadline lands in the last tick's
  // slot: it fires again on the next Advance (or later in this one if it came from an earlier
  // tick), never in a loop.
  template <typename Fn>
  void Advance(int64_t now_ns, Fn&& on_expire) {
    int64_t target_tick = now_ns / kTickNs;
    if (size_ == 0) {
      current_tick_ = target_tick;
      return;
    }
    // After a long sleep one revolution visits every slot; no need for more.
    int64_t first = std::max(current_tick_, target_tick - static_cast<int64_t>(kSlots) + 1);
    current_tick_ = target_tick;  // What the callbacks schedule lands from here on.
    TimerNode due;
    for (int64_t tick = first; tick <= target_tick; ++tick) {
      TimerNode& head = slots_[static_cast<size_t>(tick) & (kSlots - 1)];
      due.prev = due.next = &due;
      for (TimerNode* node = head.next; node != &head;) {
        TimerNode* next = node->next;
        if (node->deadline_ns <= now_ns) Move(node, &due);
        node = next;
      }
      while (due.next != &due) {
        TimerNode* node = due.next;
        Unlink(node);
        on_expire(node);
      }
    }
  }

 private:
  void Unlink(TimerNode* node);
  // From its list to the end of `list` (still scheduled, still counted).
  static void Move(TimerNode* node, TimerNode* list);

  std::vector<TimerNode> slots_;  // Circular list heads.
  int64_t current_tick_;
  size_t size_ = 0;
};

}  // namespace uringload::net
