// SocketAddress: an IPv4/IPv6 endpoint; Resolve turns a host name or literal into one, once,
// before a run (getaddrinfo is blocking and never belongs on the hot path).
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace uringload::net {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;

  int family() const { return storage.ss_family; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  std::string ToString() const;  // "1.2.3.4:80" or "[::1]:80".
};

// Resolves `host` (a name, an IPv4 literal or an IPv6 literal without brackets) for TCP.
// Prefers the first address getaddrinfo returns.
absl::StatusOr<SocketAddress> Resolve(const std::string& host, uint16_t port);

}  // namespace uringload::net
