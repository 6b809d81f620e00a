// SocketAddress: an IPv4/IPv6 endpoint or a Unix domain socket's path; Resolve turns a host
// name or literal into one, once, before a run (getaddrinfo is blocking and never belongs on
// the hot path); UnixAddress a path.
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
  bool is_unix() const { return family() == AF_UNIX; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  std::string ToString() const;  // "1.2.3.4:80", "[::1]:80" or "unix:/run/x.sock".
  std::string UnixPath() const;  // The path of an AF_UNIX address; empty for others.
  uint16_t port() const;         // An IPv4 or IPv6 address's port (host order); 0 for others.
};

// Resolves `host` (a name, an IPv4 literal or an IPv6 literal without brackets) for TCP.
// Prefers the first address getaddrinfo returns.
absl::StatusOr<SocketAddress> Resolve(const std::string& host, uint16_t port);

// Whether `host` is an IPv4 or IPv6 literal (no brackets) rather than a name: TLS sends no SNI
// for it and checks it as an IP address.
bool IsAddressLiteral(const std::string& host);

// A Unix domain stream socket's address; `path` must be non-empty and fit sun_path (107 bytes
// and its terminating zero). Abstract names (a leading zero byte) are not taken.
absl::StatusOr<SocketAddress> UnixAddress(std::string_view path);

// Before a run connects to a Unix socket: the path exists, is a socket, and this process may
// connect to it (write permission); otherwise an error naming the path and the reason.
absl::Status CheckUnixSocketTarget(const SocketAddress& address);

}  // namespace uringload::net
