#include "tests/support/ports.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>

namespace uringload::testing {
namespace {

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// Binds a socket of `type` (TCP's by default) to 127.0.0.1:0 and returns it with its port.
int BindAnyPort(uint16_t* port, int type = SOCK_STREAM) {
  int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
  sockaddr_in addr = Loopback(0);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

// Below the ephemeral range, so that no client connection of this machine (another test's,
// running in parallel) can take the port between this check and the server's bind. Where the
// range starts too low to leave room, the kernel picks one.
uint16_t FreePort() {
  int low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low;
  static std::mt19937 random(std::random_device{}());
  for (int attempt = 0; low > 11'000 && attempt < 200; ++attempt) {
    auto port = static_cast<uint16_t>(std::uniform_int_distribution<int>(10'000, low - 1)(random));
    // Free for TCP and for UDP: QUIC servers (caddy, serve --http3) take the UDP port.
    bool free = true;
    for (int type : {SOCK_STREAM, SOCK_DGRAM}) {
      int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
      sockaddr_in addr = Loopback(port);
      free = free && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
      close(fd);
    }
    if (free) return port;
  }
  uint16_t port = 0;
  close(BindAnyPort(&port));
  return port;
}

uint16_t FreePortRange(int count) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    uint16_t first = FreePort();
    bool all_free = true;
    for (int i = 1; i < count && all_free; ++i) {
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in addr = Loopback(static_cast<uint16_t>(first + i));
      all_free =
          first + i <= 65535 && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
      close(fd);
    }
    if (all_free) return first;
  }
  return 0;
}

bool WaitForListener(uint16_t port, int timeout_ms) {
  for (int waited = 0; waited < timeout_ms; waited += 20) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = Loopback(port);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    close(fd);
    if (ok) return true;
    usleep(20'000);
  }
  return false;
}

bool WaitForListener6(uint16_t port, int timeout_ms) {
  for (int waited = 0; waited < timeout_ms; waited += 20) {
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_port = htons(port);
    addr.sin6_addr = in6addr_loopback;
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    close(fd);
    if (ok) return true;
    usleep(20'000);
  }
  return false;
}

SilentListener::SilentListener() {
  fd_ = BindAnyPort(&port_);
  listen(fd_, 4096);
}

SilentListener::~SilentListener() { close(fd_); }

int SilentListener::AcceptAll() {
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  int count = 0;
  while (true) {
    int fd = accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    close(fd);
    ++count;
  }
  return count;
}

SilentUdpSocket::SilentUdpSocket() { fd_ = BindAnyPort(&port_, SOCK_DGRAM); }

SilentUdpSocket::~SilentUdpSocket() { close(fd_); }

int SilentUdpSocket::TakeDatagrams() {
  int count = 0;
  char byte;
  while (recv(fd_, &byte, 1, MSG_DONTWAIT) >= 0) ++count;
  return count;
}

namespace {

// Whether `pid` holds one of the sockets of `tables` bound to `port` in `state` (0A: TCP's
// LISTEN; 07: an unconnected UDP socket).
bool HoldsSocket(int pid, uint16_t port, std::initializer_list<const char*> tables,
                 const std::string& wanted_state) {
  std::set<std::string> inodes;  // Of the sockets bound to `port`.
  char want[8];
  snprintf(want, sizeof(want), ":%04X", port);
  // The tables of pid's own network namespace (a server in another namespace has its own).
  for (const char* table : tables) {
    std::ifstream in("/proc/" + std::to_string(pid) + table);
    std::string line;
    std::getline(in, line);  // Header.
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      f >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >>
          inode;
      if (state == wanted_state && local.size() > 5 && local.substr(local.size() - 5) == want) {
        inodes.insert("socket:[" + inode + "]");
      }
    }
  }
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
    if (!ec && inodes.count(target) > 0) return true;
  }
  return false;
}

}  // namespace

bool ListensOn(int pid, uint16_t port) {
  return HoldsSocket(pid, port, {"/net/tcp", "/net/tcp6"}, "0A");
}

bool ReceivesUdpOn(int pid, uint16_t port) {
  return HoldsSocket(pid, port, {"/net/udp", "/net/udp6"}, "07");
}

}  // namespace uringload::testing
