#include "net/address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace uringload::net {

std::string SocketAddress::ToString() const {
  if (is_unix()) return absl::StrCat("unix:", UnixPath());
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

std::string SocketAddress::UnixPath() const {
  if (!is_unix()) return "";
  const auto* un = reinterpret_cast<const sockaddr_un*>(&storage);
  return std::string(un->sun_path, strnlen(un->sun_path, sizeof(un->sun_path)));
}

uint16_t SocketAddress::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  }
  return 0;
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

bool IsAddressLiteral(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

absl::StatusOr<SocketAddress> UnixAddress(std::string_view path) {
  SocketAddress address;
  auto* un = reinterpret_cast<sockaddr_un*>(&address.storage);
  if (path.empty() || path.find('\0') != std::string_view::npos) {
    return absl::InvalidArgumentError("a Unix socket's path must be a non-empty path");
  }
  if (path.size() >= sizeof(un->sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("the Unix socket path '", std::string(path),
                                                   "' is ", path.size(), " bytes; at most ",
                                                   sizeof(un->sun_path) - 1, " fit"));
  }
  un->sun_family = AF_UNIX;
  std::memcpy(un->sun_path, path.data(), path.size());
  address.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
  return address;
}

absl::Status CheckUnixSocketTarget(const SocketAddress& address) {
  std::string path = address.UnixPath();
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", strerror(errno)));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a socket"));
  }
  // connect() needs write permission on the socket (unix(7)); access() checks the real uid,
  // which is this process' unless it is set-uid, and it is not.
  if (access(path.c_str(), W_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace uringload::net
