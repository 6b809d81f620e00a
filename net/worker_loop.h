// MakeWorkerLoop: the event loop one worker runs on, client or server alike: a RingEventLoop,
// behind a TlsEventLoop when the plan speaks TLS (the transport seam: the worker cannot tell).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "net/event_loop.h"
#include "net/ring_event_loop.h"
#include "net/tls_context.h"
#include "net/tls_event_loop.h"

namespace uringload::net {

// `tls`: null for plain TCP. `peers`: the client's servers (their names for SNI and
// verification, and which speak TLS; EventLoop::SetPeer); empty for a server.
absl::StatusOr<std::unique_ptr<EventLoop>> MakeWorkerLoop(const RingEventLoopOptions& options,
                                                          std::shared_ptr<TlsContext> tls,
                                                          std::vector<TlsPeer> peers);

}  // namespace uringload::net
