#include "net/worker_loop.h"

#include <utility>

#include "net/base/status_macros.h"
#include "net/tls_event_loop.h"

namespace uringload::net {

absl::StatusOr<std::unique_ptr<EventLoop>> MakeWorkerLoop(const RingEventLoopOptions& options,
                                                          std::shared_ptr<TlsContext> tls,
                                                          std::vector<TlsPeer> peers) {
  URINGLOAD_ASSIGN_OR_RETURN(std::unique_ptr<RingEventLoop> ring, RingEventLoop::Create(options));
  std::unique_ptr<EventLoop> loop = std::move(ring);
  if (tls != nullptr) {
    loop = std::make_unique<TlsEventLoop>(std::move(loop), std::move(tls), options.slots,
                                          std::move(peers));
  }
  return loop;
}

}  // namespace uringload::net
