// Helpers for tests of QUIC connections wired back to back in memory: a loopback path, and
// the datagrams a connection has to send now, split as the kernel splits a GSO send.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "net/quic_connection.h"

namespace uringload::net::testing {

// 127.0.0.1:local_port to 127.0.0.1:remote_port.
inline QuicPath LoopbackPath(uint16_t local_port, uint16_t remote_port) {
  QuicPath path;
  auto set = [](sockaddr_storage* storage, socklen_t* length, uint16_t port) {
    auto* in = reinterpret_cast<sockaddr_in*>(storage);
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    *length = sizeof(sockaddr_in);
  };
  set(&path.local, &path.local_length, local_port);
  set(&path.remote, &path.remote_length, remote_port);
  return path;
}

// The datagrams of every run `from` has to send now, split at their datagram size as the
// kernel splits a GSO send. Checks each run's shape on the way.
template <typename Writer>
std::vector<std::string> TakeDatagrams(Writer& from, int64_t now_ns) {
  std::vector<std::string> datagrams;
  std::vector<uint8_t> buffer(64 * 1024);
  for (int runs = 0; runs < 100; ++runs) {
    uint32_t size = 0;
    size_t n = from.Write(buffer, now_ns, &size);
    if (n == 0) break;
    EXPECT_GT(size, 0u);
    EXPECT_LE(size, 1452u);
    EXPECT_LE((n + size - 1) / size, 64u);
    for (size_t at = 0; at < n; at += size) {
      datagrams.emplace_back(reinterpret_cast<const char*>(buffer.data()) + at,
                             std::min<size_t>(size, n - at));
    }
  }
  return datagrams;
}

inline std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace uringload::net::testing
