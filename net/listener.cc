#include "net/listener.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace uringload::net {

absl::StatusOr<UniqueFd> OpenListener(const SocketAddress& address, int backlog, int incoming_cpu) {
  UniqueFd fd(socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    return absl::UnavailableError(absl::StrCat("socket: ", strerror(errno)));
  }
  int one = 1;
  if (!address.is_unix()) {
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  if (incoming_cpu >= 0 && !address.is_unix() &&
      setsockopt(fd.get(), SOL_SOCKET, SO_INCOMING_CPU, &incoming_cpu, sizeof(incoming_cpu)) != 0) {
    return absl::UnavailableError(absl::StrCat("SO_INCOMING_CPU: ", strerror(errno)));
  }
  if (bind(fd.get(), address.get(), address.length) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", address.ToString(), ": ", strerror(errno)));
  }
  if (listen(fd.get(), backlog) != 0) {
    return absl::UnavailableError(
        absl::StrCat("listen on ", address.ToString(), ": ", strerror(errno)));
  }
  return fd;
}

absl::StatusOr<UniqueFd> OpenDatagramListener(const SocketAddress& address) {
  UniqueFd fd(socket(address.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return absl::UnavailableError(absl::StrCat("socket: ", strerror(errno)));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  setsockopt(fd.get(), SOL_UDP, UDP_GRO, &one, sizeof(one));
  if (bind(fd.get(), address.get(), address.length) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on UDP ", address.ToString(), ": ", strerror(errno)));
  }
  return fd;
}

namespace {

absl::Status CheckUnixPathFree(const SocketAddress& address) {
  std::string path = address.UnixPath();
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::UnavailableError(absl::StrCat("cannot listen on ", path, ": ", strerror(errno)));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot listen on ", path, ": it exists and is not a socket"));
  }
  UniqueFd probe(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (probe.get() < 0) return absl::UnavailableError(absl::StrCat("socket: ", strerror(errno)));
  if (connect(probe.get(), address.get(), address.length) == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot listen on ", path, ": a server accepts on it (address already in use)"));
  }
  if (errno != ECONNREFUSED) {  // EACCES, EAGAIN (a full backlog: someone listens), ...
    return absl::FailedPreconditionError(
        absl::StrCat("cannot listen on ", path, ": ", strerror(errno)));
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {  // Stale: its server is gone.
    return absl::UnavailableError(
        absl::StrCat("cannot remove the stale socket ", path, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAddressFree(const SocketAddress& address, int type) {
  if (address.is_unix()) return CheckUnixPathFree(address);
  UniqueFd probe(socket(address.family(), type | SOCK_CLOEXEC, 0));
  if (probe.get() < 0) return absl::UnavailableError(absl::StrCat("socket: ", strerror(errno)));
  int one = 1;
  setsockopt(probe.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(probe.get(), address.get(), address.length) == 0) return absl::OkStatus();
  int error = errno;
  std::string message = absl::StrCat("cannot listen on ", type == SOCK_DGRAM ? "UDP " : "",
                                     address.ToString(), ": ", strerror(error));
  if (error == EADDRINUSE) {
    // A listener, or the local end of a connection (an ephemeral port can be any port in
    // ip_local_port_range, which tune-kernel widens to 1024-65535).
    absl::StrAppend(&message, " (another socket holds it: a listener or a connection)");
    return absl::FailedPreconditionError(message);
  }
  return absl::UnavailableError(message);
}

int SomaxConn() {
  std::ifstream in("/proc/sys/net/core/somaxconn");
  int value = 0;
  in >> value;
  return value;
}

}  // namespace uringload::net
