#include "net/source_addresses.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/status_macros.h"

namespace uringload::net {
namespace {

// An address of either family as a number, so that ranges and blocks work alike for both.
struct Numbered {
  int family = AF_INET;
  unsigned __int128 value = 0;
  int bits() const { return family == AF_INET ? 32 : 128; }
};

absl::Status Invalid(absl::string_view item) {
  return absl::InvalidArgumentError(
      absl::StrCat("--source: invalid address '", item,
                   "' (use 127.0.0.2, 127.0.0.2-127.0.0.9, 127.0.0.0/28, 2001:db8::2-2001:db8::9, "
                   "2001:db8::/120 or a comma-separated list)"));
}

bool Parse(absl::string_view text, Numbered* out) {
  std::string s(text);
  in_addr v4{};
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    *out = {AF_INET, ntohl(v4.s_addr)};
    return true;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, s.c_str(), &v6) != 1) return false;
  *out = {AF_INET6, 0};
  for (uint8_t byte : v6.s6_addr) out->value = (out->value << 8) | byte;
  return true;
}

SocketAddress ToAddress(const Numbered& n) {
  SocketAddress out;
  if (n.family == AF_INET) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&out.storage);
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(static_cast<uint32_t>(n.value));
    out.length = sizeof(sockaddr_in);
    return out;
  }
  auto* sin6 = reinterpret_cast<sockaddr_in6*>(&out.storage);
  sin6->sin6_family = AF_INET6;
  for (int i = 15; i >= 0; --i)
    sin6->sin6_addr.s6_addr[i] = static_cast<uint8_t>(n.value >> (8 * (15 - i)));
  out.length = sizeof(sockaddr_in6);
  return out;
}

absl::Status AddRange(const Numbered& first, const Numbered& last,
                      std::vector<SocketAddress>* out) {
  if (first.family != last.family || last.value < first.value ||
      last.value - first.value >= kMaxSourceAddresses) {
    return absl::InvalidArgumentError(
        absl::StrCat("--source: a range must go upwards within one family and name at most ",
                     kMaxSourceAddresses, " addresses"));
  }
  for (Numbered a = first; a.value <= last.value; ++a.value) {
    out->push_back(ToAddress(a));
    if (a.value == last.value) break;  // The family's last address: no wrap.
  }
  return absl::OkStatus();
}

absl::Status AddItem(absl::string_view item, std::vector<SocketAddress>* out) {
  Numbered first, last;
  if (size_t slash = item.find('/'); slash != absl::string_view::npos) {
    int bits = 0;
    // At most 4096 addresses: /20 and longer for IPv4, /116 and longer for IPv6.
    if (!Parse(item.substr(0, slash), &first) || !absl::SimpleAtoi(item.substr(slash + 1), &bits) ||
        bits < first.bits() - 12 || bits > first.bits()) {
      return Invalid(item);
    }
    unsigned __int128 host = (static_cast<unsigned __int128>(1) << (first.bits() - bits)) - 1;
    first.value &= ~host;
    last = first;
    last.value |= host;
    return AddRange(first, last, out);
  }
  if (size_t dash = item.find('-'); dash != absl::string_view::npos) {
    if (!Parse(item.substr(0, dash), &first) || !Parse(item.substr(dash + 1), &last)) {
      return Invalid(item);
    }
    return AddRange(first, last, out);
  }
  if (!Parse(item, &first)) return Invalid(item);
  return AddRange(first, first, out);
}

}  // namespace

absl::StatusOr<std::vector<SocketAddress>> ParseSourceAddresses(const std::string& text) {
  std::vector<SocketAddress> out;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    URINGLOAD_RETURN_IF_ERROR(AddItem(item, &out));
    if (out.size() > kMaxSourceAddresses) {
      return absl::InvalidArgumentError(
          absl::StrCat("--source: at most ", kMaxSourceAddresses, " addresses"));
    }
  }
  return out;
}

}  // namespace uringload::net
