#include "net/address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/str_cat.h"

namespace uringload::net {

std::string SocketAddress::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&storage);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    return absl::StrCat(text, ":", ntohs(v4->sin_port));
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&storage);
  inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
  return absl::StrCat("[", text, "]:", ntohs(v6->sin6_port));
}

absl::StatusOr<SocketAddress> Resolve(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* results = nullptr;
  std::string service = std::to_string(port);
  int ret = getaddrinfo(host.c_str(), service.c_str(), &hints, &results);
  if (ret != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot resolve host '", host, "': ", gai_strerror(ret)));
  }
  SocketAddress address;
  std::memcpy(&address.storage, results->ai_addr, results->ai_addrlen);
  address.length = results->ai_addrlen;
  freeaddrinfo(results);
  return address;
}

}  // namespace uringload::net
