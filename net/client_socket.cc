#include "net/client_socket.h"

#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>

#include <cerrno>

namespace uringload::net {

UniqueFd OpenBoundClientSocket(const SocketAddress& source, int* error) {
  UniqueFd fd(socket(source.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    *error = errno;
    return fd;
  }
  int one = 1;
  setsockopt(fd.get(), IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
  if (bind(fd.get(), source.get(), source.length) != 0) {
    *error = errno;
    return UniqueFd();
  }
  *error = 0;
  return fd;
}

UniqueFd OpenDatagramSocket(int family, const SocketAddress* source, int* error) {
  UniqueFd fd(socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    *error = errno;
    return fd;
  }
  int one = 1;
  setsockopt(fd.get(), SOL_UDP, UDP_GRO, &one, sizeof(one));
  // A QUIC server's socket for one client binds its listener's port (both SO_REUSEPORT); once
  // connected, the kernel gives it that client's datagrams.
  if (source != nullptr && source->port() != 0) {
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
  }
  if (source != nullptr && bind(fd.get(), source->get(), source->length) != 0) {
    *error = errno;
    return UniqueFd();
  }
  *error = 0;
  return fd;
}

}  // namespace uringload::net
