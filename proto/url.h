// Url: the parts of an http:// target URL that uringload needs (host, port, request target).
// Parsing only; name resolution lives in net/. https:// is recognised and refused clearly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace uringload::proto {

struct Url {
  std::string host;    // Name or address literal, IPv6 without brackets.
  uint16_t port = 80;  // Explicit or the scheme's default.
  bool host_is_ipv6_literal = false;
  std::string target;  // Path and query as sent on the request line ("/" when empty).

  // The Host header value: host[:port], with brackets for IPv6 literals.
  std::string HostHeader() const;
};

// Parses "http://host[:port][/path][?query]". Fragments are dropped, as browsers do.
absl::StatusOr<Url> ParseUrl(std::string_view text);

}  // namespace uringload::proto
