// Url: the parts of an http:// or https:// target URL that uringload needs (scheme, host,
// port, request target). Parsing only; name resolution lives in net/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace uringload::proto {

struct Url {
  std::string host;         // Name or address literal, IPv6 without brackets.
  uint16_t port = 80;       // Explicit or the scheme's default.
  uint16_t last_port = 80;  // A port range "8080-8083" names several targets; else == port.
  bool host_is_ipv6_literal = false;
  bool tls = false;    // https://
  std::string target;  // Path and query as sent on the request line ("/" when empty).

  // The Host header value for `target_port`: host[:port], brackets for IPv6 literals.
  std::string HostHeader(uint16_t target_port) const;
  std::string HostHeader() const { return HostHeader(port); }
};

// Parses "http[s]://host[:port[-last]][/path][?query]" (port 80 or 443 by default). Fragments
// are dropped, as browsers do.
absl::StatusOr<Url> ParseUrl(std::string_view text);

}  // namespace uringload::proto
