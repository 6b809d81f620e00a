#include "tests/support/misbehaving_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <string_view>

namespace uringload::testing {
namespace {

constexpr char kSlowResponse[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nslow!";
constexpr std::string_view kKeepAliveResponse =
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok";

// A response whose header block is exactly `size` bytes (>= 64), with an empty body.
std::string HeadersOfSize(size_t size) {
  std::string out = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n";
  size_t fill = size - out.size() - 4;  // Room left before the last "\r\n" and the blank line.
  while (fill > 1010) {
    out += "X-Filler: " + std::string(998, 'f') + "\r\n";
    fill -= 1010;
  }
  out += "X: " + std::string(fill - 3, 'f');
  return out + "\r\n\r\n";
}

size_t CountRequests(std::string_view bytes, std::string& tail) {
  tail.append(bytes);
  size_t count = 0;
  for (size_t at = tail.find("\r\n\r\n"); at != std::string::npos; at = tail.find("\r\n\r\n")) {
    ++count;
    tail.erase(0, at + 4);
  }
  return count;
}

}  // namespace

MisbehavingServer::MisbehavingServer(Mode mode, int interval_ms, size_t header_bytes)
    : mode_(mode), interval_ms_(interval_ms), header_bytes_(header_bytes) {
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

// Sends all of `bytes` on a non-blocking socket, waiting while its buffer is full.
void SendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno == EAGAIN) {
      pollfd out{fd, POLLOUT, 0};
      poll(&out, 1, 100);
    } else {
      return;
    }
  }
}

// One thread: accept, then on every tick send each connection its next byte (dribble), the
// whole header block once a request arrived (huge headers), or a keep-alive response per
// request received (ignore close).
void MisbehavingServer::Loop() {
  std::map<int, size_t> sent;         // fd -> bytes of the response sent so far.
  std::map<int, std::string> unread;  // fd -> bytes of an incomplete request.
  const std::string huge = HeadersOfSize(header_bytes_);
  while (!stop_) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    poll(&pfd, 1, mode_ == Mode::kDribble ? interval_ms_ : mode_ == Mode::kIgnoreClose ? 1 : 10);
    while (true) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) break;
      sent[fd] = 0;
      ++connections_;
    }
    for (auto it = sent.begin(); it != sent.end();) {
      char drain[4096];
      ssize_t got = recv(it->first, drain, sizeof(drain), 0);
      if (got == 0) {  // The client gave up: forget it.
        close(it->first);
        unread.erase(it->first);
        it = sent.erase(it);
        continue;
      }
      size_t requests = got > 0 ? CountRequests({drain, size_t(got)}, unread[it->first]) : 0;
      requests_ += requests;
      if (mode_ == Mode::kIgnoreClose) {
        for (size_t i = 0; i < requests; ++i) SendAll(it->first, kKeepAliveResponse);
      }
      if (mode_ == Mode::kDribble && it->second < sizeof(kSlowResponse) - 1) {
        if (send(it->first, kSlowResponse + it->second, 1, MSG_NOSIGNAL) == 1) ++it->second;
      } else if (mode_ == Mode::kHugeHeaders && requests > 0) {
        for (size_t i = 0; i < requests; ++i) SendAll(it->first, huge);
        it->second = huge.size();
      }
      ++it;
    }
  }
  for (auto& [fd, bytes] : sent) close(fd);
}

}  // namespace uringload::testing
