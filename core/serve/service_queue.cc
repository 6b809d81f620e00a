#include "core/serve/service_queue.h"

#include <algorithm>
#include <functional>

namespace uringload::core {

int64_t ServiceQueue::Admit(int64_t arrival_ns, int64_t service_ns) {
  if (free_at_.empty()) return arrival_ns + service_ns;
  // The slot free earliest serves it; the heap keeps its size, so nothing is allocated.
  std::pop_heap(free_at_.begin(), free_at_.end(), std::greater<>());
  int64_t done = std::max(arrival_ns, free_at_.back()) + service_ns;
  free_at_.back() = done;
  std::push_heap(free_at_.begin(), free_at_.end(), std::greater<>());
  return done;
}

}  // namespace uringload::core
