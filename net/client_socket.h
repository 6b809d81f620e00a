// Client sockets made outside the ring and installed into a ring slot (io_uring 2.3 can
// neither bind nor set socket options before Linux 6.7):
// OpenBoundClientSocket: a TCP socket bound to a chosen source address with
// IP_BIND_ADDRESS_NO_PORT, so the kernel picks the port at connect time per destination
// (each source address then has its own ephemeral port range towards each target).
// OpenDatagramSocket: a UDP socket for QUIC, with UDP_GRO on, bound to a source when given.
#pragma once

#include "absl/status/statusor.h"
#include "net/address.h"
#include "net/listener.h"

namespace uringload::net {

// Returns the socket, or the errno of the failure (as an int > 0) in `*error`.
UniqueFd OpenBoundClientSocket(const SocketAddress& source, int* error);
// The same for a UDP socket of `family`. UDP_GRO (Linux 5.0) lets one receive take a run of
// same-size datagrams; a kernel without it still receives them one at a time.
UniqueFd OpenDatagramSocket(int family, const SocketAddress* source, int* error);

}  // namespace uringload::net
