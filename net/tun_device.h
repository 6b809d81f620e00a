// OpenTunDevice: a descriptor on an existing TUN device inside a named network namespace (one
// that `ip netns add` made, under /var/run/netns): reads return the IP packets the namespace
// routes into the device, writes hand IP packets to that namespace's stack. No packet
// information header (IFF_NO_PI), non-blocking (io_uring polls it).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "net/listener.h"

namespace uringload::net {

// The calling thread enters `netns` to attach and returns to its own namespace before this
// returns. A device that does not exist is an error, not created (TUNSETIFF would make one).
absl::StatusOr<UniqueFd> OpenTunDevice(const std::string& netns, const std::string& device);

}  // namespace uringload::net
