#include "tests/support/misbehaving_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>

namespace uringload::testing {
namespace {

constexpr char kSlowResponse[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nslow!";

std::string HugeHeaders() {
  std::string out = "HTTP/1.1 200 OK\r\n";
  while (out.size() < 70 * 1024) out += "X-Filler: " + std::string(1000, 'f') + "\r\n";
  return out + "Content-Length: 0\r\n\r\n";
}

}  // namespace

MisbehavingServer::MisbehavingServer(Mode mode, int interval_ms)
    : mode_(mode), interval_ms_(interval_ms) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  listen(listen_fd_, 1024);
  thread_ = std::thread([this] { Loop(); });
}

MisbehavingServer::~MisbehavingServer() {
  stop_ = true;
  thread_.join();
  close(listen_fd_);
}

// One thread: accept, then on every tick send each connection its next byte (dribble), or
// the whole oversized header block once a request arrived (huge headers).
void MisbehavingServer::Loop() {
  std::map<int, size_t> sent;  // fd -> bytes of the response sent so far.
  const std::string huge = HugeHeaders();
  while (!stop_) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    poll(&pfd, 1, mode_ == Mode::kDribble ? interval_ms_ : 10);
    while (true) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) break;
      sent[fd] = 0;
    }
    for (auto it = sent.begin(); it != sent.end();) {
      char drain[4096];
      ssize_t got = recv(it->first, drain, sizeof(drain), 0);
      if (got == 0) {  // The client gave up: forget it.
        close(it->first);
        it = sent.erase(it);
        continue;
      }
      if (mode_ == Mode::kDribble && it->second < sizeof(kSlowResponse) - 1) {
        if (send(it->first, kSlowResponse + it->second, 1, MSG_NOSIGNAL) == 1) ++it->second;
      } else if (mode_ == Mode::kHugeHeaders && it->second == 0 && got > 0) {
        fcntl(it->first, F_SETFL, 0);  // Blocking: all 70 KiB go out.
        for (size_t off = 0; off < huge.size();) {
          ssize_t n = send(it->first, huge.data() + off, huge.size() - off, MSG_NOSIGNAL);
          if (n <= 0) break;
          off += static_cast<size_t>(n);
        }
        it->second = huge.size();
      }
      ++it;
    }
  }
  for (auto& [fd, bytes] : sent) close(fd);
}

}  // namespace uringload::testing
