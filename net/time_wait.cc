#include "net/time_wait.h"

#include <netinet/in.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace uringload::net {
namespace {

constexpr absl::string_view kTimeWaitState = "06";  // TCP_TIME_WAIT, as /proc/net/tcp prints it.

// An endpoint as /proc/net/tcp prints it, in hexadecimal: the address as 32-bit words (one for
// IPv4, four for IPv6), each printed as this machine reads the network-order bytes from memory,
// so storing the parsed words back restores those bytes; a colon; the port in host order.
struct ProcEndpoint {
  uint32_t words[4] = {};
  uint16_t port = 0;
};

bool ParseEndpoint(absl::string_view text, bool ipv6, ProcEndpoint* out) {
  size_t address_digits = ipv6 ? 32 : 8;
  if (text.size() != address_digits + 5 || text[address_digits] != ':') return false;
  for (size_t w = 0; w < address_digits / 8; ++w) {
    if (!absl::SimpleHexAtoi(absl::string_view(text.data() + 8 * w, 8), &out->words[w])) {
      return false;
    }
  }
  uint32_t port = 0;
  if (!absl::SimpleHexAtoi(absl::string_view(text.data() + address_digits + 1, 4), &port)) {
    return false;
  }
  out->port = static_cast<uint16_t>(port);
  return true;
}

bool SameAddress(const ProcEndpoint& e, const SocketAddress& a) {
  if (a.family() == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a.storage);
    return std::memcmp(&e.words[0], &v4->sin_addr, 4) == 0;
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a.storage);
  return std::memcmp(e.words, &v6->sin6_addr, 16) == 0;
}

// Index of the first address in `list` of `family` that `matches`, or -1.
template <typename Matches>
int Find(std::span<const SocketAddress> list, int family, Matches matches) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].family() == family && matches(list[i])) return static_cast<int>(i);
  }
  return -1;
}

// Adds the socket on one line of /proc/net/tcp{,6} to `counts` if it is in TIME_WAIT towards
// one of `targets` from one of `sources` (see the header).
void CountLine(absl::string_view line, bool ipv6, std::span<const SocketAddress> sources,
               std::span<const SocketAddress> targets, std::span<uint64_t> counts) {
  // "  sl: local remote st ...": fields 1, 2 and 3 after splitting on spaces.
  absl::string_view fields[4];
  size_t n = 0;
  for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    fields[n++] = field;
    if (n == 4) break;
  }
  int family = ipv6 ? AF_INET6 : AF_INET;
  ProcEndpoint local, remote;
  if (n < 4 || fields[3] != kTimeWaitState || !ParseEndpoint(fields[1], ipv6, &local) ||
      !ParseEndpoint(fields[2], ipv6, &remote)) {
    return;
  }
  int t = Find(targets, family, [&](const SocketAddress& a) {
    return a.port() == remote.port && SameAddress(remote, a);
  });
  if (t < 0) return;
  int s = sources.empty() ? 0 : Find(sources, family, [&](const SocketAddress& a) {
    return SameAddress(local, a);
  });
  if (s < 0) return;
  counts[static_cast<size_t>(s) * targets.size() + static_cast<size_t>(t)]++;
}

}  // namespace

void CountTimeWait(std::string_view proc_text, bool ipv6, std::span<const SocketAddress> sources,
                   std::span<const SocketAddress> targets, std::span<uint64_t> counts) {
  // Debian's absl has its own string_view.
  absl::string_view text(proc_text.data(), proc_text.size());
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    CountLine(line, ipv6, sources, targets, counts);
  }
}

void CountTimeWaitInFile(const char* path, bool ipv6, std::span<const SocketAddress> sources,
                         std::span<const SocketAddress> targets, std::span<uint64_t> counts) {
  // Line by line: the file is ~150 bytes per socket, and reading it whole made the peak RSS
  // follow the sockets earlier runs left (docs/performance.md, "Memory at 100,000 connections").
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) CountLine(line, ipv6, sources, targets, counts);
}

std::vector<uint64_t> CountTimeWait(std::span<const SocketAddress> sources,
                                    std::span<const SocketAddress> targets) {
  std::vector<uint64_t> counts(std::max<size_t>(1, sources.size()) * targets.size());
  CountTimeWaitInFile("/proc/net/tcp", false, sources, targets, counts);
  CountTimeWaitInFile("/proc/net/tcp6", true, sources, targets, counts);
  return counts;
}

}  // namespace uringload::net
