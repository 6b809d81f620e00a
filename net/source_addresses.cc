#include "net/source_addresses.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace uringload::net {
namespace {

absl::Status Invalid(absl::string_view item) {
  return absl::InvalidArgumentError(absl::StrCat(
      "--source: invalid address '", item,
      "' (use 127.0.0.2, 127.0.0.2-127.0.0.9, 127.0.0.0/28 or a comma-separated list)"));
}

bool ParseV4(absl::string_view text, uint32_t* host_order) {
  in_addr addr{};
  if (inet_pton(AF_INET, std::string(text).c_str(), &addr) != 1) return false;
  *host_order = ntohl(addr.s_addr);
  return true;
}

SocketAddress V4(uint32_t host_order) {
  SocketAddress out;
  auto* sin = reinterpret_cast<sockaddr_in*>(&out.storage);
  sin->sin_family = AF_INET;
  sin->sin_addr.s_addr = htonl(host_order);
  out.length = sizeof(sockaddr_in);
  return out;
}

absl::Status AddRange(uint32_t first, uint32_t last, std::vector<SocketAddress>* out) {
  if (last < first || last - first >= kMaxSourceAddresses) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--source: a range must go upwards and name at most ", kMaxSourceAddresses, " addresses"));
  }
  for (uint64_t a = first; a <= last; ++a) out->push_back(V4(static_cast<uint32_t>(a)));
  return absl::OkStatus();
}

absl::Status AddItem(absl::string_view item, std::vector<SocketAddress>* out) {
  uint32_t first = 0, last = 0;
  if (size_t slash = item.find('/'); slash != absl::string_view::npos) {
    int bits = 0;
    if (!ParseV4(item.substr(0, slash), &first) ||
        !absl::SimpleAtoi(item.substr(slash + 1), &bits) || bits < 20 || bits > 32) {
      return Invalid(item);  // /20 and longer: at most 4096 addresses.
    }
    uint32_t mask = bits == 32 ? ~0u : ~((1u << (32 - bits)) - 1);
    return AddRange(first & mask, (first & mask) | ~mask, out);
  }
  if (size_t dash = item.find('-'); dash != absl::string_view::npos) {
    if (!ParseV4(item.substr(0, dash), &first) || !ParseV4(item.substr(dash + 1), &last)) {
      return Invalid(item);
    }
    return AddRange(first, last, out);
  }
  if (ParseV4(item, &first)) return AddRange(first, first, out);
  SocketAddress v6;
  auto* sin6 = reinterpret_cast<sockaddr_in6*>(&v6.storage);
  if (inet_pton(AF_INET6, std::string(item).c_str(), &sin6->sin6_addr) != 1) return Invalid(item);
  sin6->sin6_family = AF_INET6;
  v6.length = sizeof(sockaddr_in6);
  out->push_back(v6);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<SocketAddress>> ParseSourceAddresses(const std::string& text) {
  std::vector<SocketAddress> out;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    if (absl::Status s = AddItem(item, &out); !s.ok()) return s;
    if (out.size() > kMaxSourceAddresses) {
      return absl::InvalidArgumentError(
          absl::StrCat("--source: at most ", kMaxSourceAddresses, " addresses"));
    }
  }
  return out;
}

}  // namespace uringload::net
