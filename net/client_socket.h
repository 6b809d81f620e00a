// OpenBoundClientSocket: a TCP socket bound to a chosen source address with
// IP_BIND_ADDRESS_NO_PORT, so the kernel picks the port at connect time per destination
// (each source address then has its own ephemeral port range towards each target).
// io_uring 2.3 cannot bind, so the socket is made here and installed into a ring slot.
#pragma once

#include "absl/status/statusor.h"
#include "net/address.h"
#include "net/listener.h"

namespace uringload::net {

// Returns the socket, or the errno of the failure (as an int > 0) in `*error`.
UniqueFd OpenBoundClientSocket(const SocketAddress& source, int* error);

}  // namespace uringload::net
