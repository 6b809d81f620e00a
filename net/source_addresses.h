// Source addresses for client sockets (--source): "127.0.0.2", "127.0.0.2,127.0.0.3",
// an IPv4 range "127.0.0.2-127.0.0.9", a CIDR block "127.0.0.0/28" (every address in it), or
// a comma-separated mix. Each source address gives its own ~28k ephemeral ports per target.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "net/address.h"

namespace uringload::net {

inline constexpr size_t kMaxSourceAddresses = 4096;

absl::StatusOr<std::vector<SocketAddress>> ParseSourceAddresses(const std::string& text);

}  // namespace uringload::net
