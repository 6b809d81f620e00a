// ServiceQueue: `serve --service-slots K`, a server of known capacity. At most K requests are
// in service at once, each for its drawn delay; the others wait in arrival order (a FIFO
// queue with K servers). When a request arrives its answer time follows at once: it starts
// when the earliest of the K slots is free (or on arrival), and ends its service time later.
// With a fixed delay T the worker's capacity is exactly K / T requests per second.
#pragma once

#include <cstdint>
#include <vector>

namespace uringload::core {

class ServiceQueue {
 public:
  // `slots` 0: no limit (every request starts on arrival).
  explicit ServiceQueue(uint32_t slots) : free_at_(slots, 0) {}

  // The time a request arriving at `arrival_ns` is answered, after `service_ns` of service.
  int64_t Admit(int64_t arrival_ns, int64_t service_ns);

 private:
  std::vector<int64_t> free_at_;  // A min-heap: when each slot is next free.
};

}  // namespace uringload::core
