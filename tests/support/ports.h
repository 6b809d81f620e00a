// Loopback helpers for tests: a free port, waiting for a listener, and a TCP listener and a
// UDP socket that take what comes but never answer (for timeout tests).
#pragma once

#include <cstdint>
#include <string>

namespace uringload::testing {

// "127.0.0.1:port", as --listen and --metrics-listen take it.
inline std::string LoopbackAddress(uint16_t port) { return "127.0.0.1:" + std::to_string(port); }
// A port on 127.0.0.1 that was free a moment ago, for TCP and for UDP.
uint16_t FreePort();
// The first of `count` consecutive ports on 127.0.0.1 that were all free a moment ago.
uint16_t FreePortRange(int count);
// Polls until something accepts TCP connections on 127.0.0.1:port; false after the timeout.
bool WaitForListener(uint16_t port, int timeout_ms = 10'000);
// The same on [::1].
bool WaitForListener6(uint16_t port, int timeout_ms = 10'000);
// Whether process `pid` holds a socket listening on TCP `port` (from /proc/PID/net/tcp{,6},
// the tables of its network namespace, and /proc/PID/fd): a server a test started is on its
// port, not someone else's.
bool ListensOn(int pid, uint16_t port);
// The same for a UDP socket bound to `port` (a QUIC server's).
bool ReceivesUdpOn(int pid, uint16_t port);

// Listens on 127.0.0.1 and never accepts nor reads: connects succeed, requests hang.
class SilentListener {
 public:
  SilentListener();
  ~SilentListener();
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  uint16_t port() const { return port_; }
  // Accepts (and closes) every connection waiting in the backlog; returns how many.
  int AcceptAll();

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// A UDP socket bound to 127.0.0.1 that never answers: a QUIC server that is not there, on a
// port nobody else can take meanwhile.
class SilentUdpSocket {
 public:
  SilentUdpSocket();
  ~SilentUdpSocket();
  SilentUdpSocket(const SilentUdpSocket&) = delete;
  SilentUdpSocket& operator=(const SilentUdpSocket&) = delete;
  uint16_t port() const { return port_; }
  // Reads (and drops) the datagrams waiting; returns how many.
  int TakeDatagrams();

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace uringload::testing
