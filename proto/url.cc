#include "proto/url.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "net/base/status_macros.h"

namespace uringload::proto {
namespace {

absl::StatusOr<uint16_t> ParsePort(absl::string_view text) {
  uint32_t port = 0;
  if (text.empty() || !absl::SimpleAtoi(text, &port) || port == 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid port '", text, "' in URL (expected 1-65535)"));
  }
  return static_cast<uint16_t>(port);
}

}  // namespace

std::string Url::HostHeader(uint16_t target_port) const {
  std::string host_part = host_is_ipv6_literal ? absl::StrCat("[", host, "]") : host;
  if (target_port == (tls ? 443 : 80)) return host_part;
  return absl::StrCat(host_part, ":", target_port);
}

absl::StatusOr<Url> ParseUrl(std::string_view input) {
  // Debian's Abseil has its own string_view type; work in it here.
  absl::string_view text(input.data(), input.size());
  constexpr absl::string_view kHttp = "http://";
  constexpr absl::string_view kHttps = "https://";
  bool tls = absl::StartsWithIgnoreCase(text, kHttps);
  if (!tls && !absl::StartsWithIgnoreCase(text, kHttp)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid URL '", text, "': expected http[s]://host[:port]/path"));
  }
  absl::string_view rest = text.substr(tls ? kHttps.size() : kHttp.size());
  if (size_t hash = rest.find('#'); hash != absl::string_view::npos) rest = rest.substr(0, hash);
  size_t target_start = rest.find_first_of("/?");
  absl::string_view authority = rest.substr(0, target_start);
  Url url;
  url.tls = tls;
  url.port = url.last_port = tls ? 443 : 80;
  url.target =
      target_start == absl::string_view::npos ? "/" : std::string(rest.substr(target_start));
  if (url.target[0] == '?') url.target = absl::StrCat("/", url.target);
  if (authority.find('@') != absl::string_view::npos) {
    return absl::InvalidArgumentError("user information in URLs is not supported");
  }
  absl::string_view port_text;
  bool has_port = false;
  if (absl::StartsWith(authority, "[")) {
    size_t close = authority.find(']');
    if (close == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("invalid IPv6 literal in URL '", text, "'"));
    }
    url.host = std::string(authority.substr(1, close - 1));
    url.host_is_ipv6_literal = true;
    absl::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') {
        return absl::InvalidArgumentError(absl::StrCat("invalid URL '", text, "'"));
      }
      port_text = after.substr(1);
      has_port = true;
    }
  } else {
    size_t colon = authority.rfind(':');
    if (colon != absl::string_view::npos) {
      port_text = authority.substr(colon + 1);
      has_port = true;
      authority = authority.substr(0, colon);
    }
    url.host = absl::AsciiStrToLower(authority);
  }
  if (url.host.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("URL '", text, "' has no host"));
  }
  if (has_port) {
    size_t dash = port_text.find('-');
    URINGLOAD_ASSIGN_OR_RETURN(uint16_t port, ParsePort(port_text.substr(0, dash)));
    url.port = url.last_port = port;
    if (dash != absl::string_view::npos) {
      URINGLOAD_ASSIGN_OR_RETURN(uint16_t last, ParsePort(port_text.substr(dash + 1)));
      if (last < port || last - port >= 1024) {
        return absl::InvalidArgumentError(absl::StrCat("invalid port range '", port_text,
                                                       "' in URL (low-high, at most 1024 ports)"));
      }
      url.last_port = last;
    }
  }
  for (char c : url.target) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return absl::InvalidArgumentError("URL path contains spaces or control characters");
    }
  }
  return url;
}

}  // namespace uringload::proto
