// UniqueFd: owns one file descriptor. OpenListener: a TCP listening socket with SO_REUSEPORT
// (one per worker, the kernel spreads connections between them) and TCP_NODELAY, which
// accepted sockets inherit, so pipelined responses are not held back by Nagle; or a Unix
// domain one (one for all workers: a path binds once).
#pragma once

#include <unistd.h>

#include <utility>

#include "absl/status/statusor.h"
#include "net/address.h"

namespace uringload::net {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~UniqueFd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// With `incoming_cpu` >= 0, the listener sets SO_INCOMING_CPU: among SO_REUSEPORT listeners
// of one port, the kernel (6.2 and later) gives a connection to one whose CPU is the CPU its
// SYN is handled on.
absl::StatusOr<UniqueFd> OpenListener(const SocketAddress& address, int backlog,
                                      int incoming_cpu = -1);

// A QUIC server's UDP socket bound to `address`, with SO_REUSEPORT (each client then gets a
// connected socket of its own on the same port) and UDP_GRO.
absl::StatusOr<UniqueFd> OpenDatagramListener(const SocketAddress& address);

// Fails with "address already in use" when another socket holds `address` (of `type`: a TCP
// port, or with SOCK_DGRAM a UDP one). For a Unix socket:
// fails when the path exists and is not a socket, or when a server accepts on it; a stale
// socket nobody listens on (a server that was killed) is removed. SO_REUSEPORT would
// let a second server join a port silently (each answering part of a run), so before this
// process' workers bind their SO_REUSEPORT listeners, a probe without SO_REUSEPORT must bind
// (SO_REUSEADDR only, so TIME_WAIT sockets of an earlier run do not count). The window
// between the probe's close and the workers' binds is microseconds.
absl::Status CheckAddressFree(const SocketAddress& address, int type = SOCK_STREAM);

// net.core.somaxconn, which silently caps every listen() backlog; 0 if unreadable.
int SomaxConn();

}  // namespace uringload::net
