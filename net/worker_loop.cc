#include "net/worker_loop.h"

#include <utility>

#include "net/tls_event_loop.h"

namespace uringload::net {

absl::StatusOr<std::unique_ptr<EventLoop>> MakeWorkerLoop(const RingEventLoopOptions& options,
                                                          std::shared_ptr<TlsContext> tls,
                                                          std::string host) {
  absl::StatusOr<std::unique_ptr<RingEventLoop>> ring = RingEventLoop::Create(options);
  if (!ring.ok()) return ring.status();
  std::unique_ptr<EventLoop> loop = *std::move(ring);
  if (tls != nullptr) {
    loop = std::make_unique<TlsEventLoop>(std::move(loop), std::move(tls), options.slots,
                                          std::move(host));
  }
  return loop;
}

}  // namespace uringload::net
