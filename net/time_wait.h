// TIME_WAIT sockets: the side of a TCP connection that closes first keeps the connection's
// four-tuple for up to 60 s. Its local port stays taken towards that remote end: new
// connects find fewer free ports (none left: EADDRNOTAVAIL, unless net.ipv4.tcp_tw_reuse lets
// them reuse one) and the kernel's port search takes longer (measured on loopback: 10,000
// connects took 0.5 s in a fresh namespace, 2.7-4.6 s after a few runs at that concurrency).
// This counts them per (source address, target) pair from /proc/net/tcp and /proc/net/tcp6.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "net/address.h"

namespace uringload::net {

// Adds the TIME_WAIT sockets listed in `proc_text` (the text of /proc/net/tcp, or of
// /proc/net/tcp6 when `ipv6`) to `counts`, one per (source, target) pair:
// counts[s * targets.size() + t] for a socket whose local address is sources[s] (any local
// address and s = 0 when `sources` is empty) and whose remote end is targets[t] (address and
// port). Other sockets and lines that do not parse are skipped.
void CountTimeWait(std::string_view proc_text, bool ipv6, std::span<const SocketAddress> sources,
                   std::span<const SocketAddress> targets, std::span<uint64_t> counts);

// The same for the file at `path`, read a line at a time: memory stays flat however many
// sockets it lists.
void CountTimeWaitInFile(const char* path, bool ipv6, std::span<const SocketAddress> sources,
                         std::span<const SocketAddress> targets, std::span<uint64_t> counts);

// The same for this network namespace's /proc/net/tcp and /proc/net/tcp6; the result has
// max(1, sources.size()) * targets.size() entries.
std::vector<uint64_t> CountTimeWait(std::span<const SocketAddress> sources,
                                    std::span<const SocketAddress> targets);

}  // namespace uringload::net
