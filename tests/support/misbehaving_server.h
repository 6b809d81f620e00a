// MisbehavingServer: a thread that accepts on 127.0.0.1 and answers every request badly on
// purpose: dribbling a response one byte per interval, sending a header block of a given
// size, or answering every request but ignoring the client's `Connection: close`.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace uringload::testing {

class MisbehavingServer {
 public:
  enum class Mode { kDribble, kHugeHeaders, kIgnoreClose };

  // kDribble sends one byte of a valid response every `interval_ms`. kHugeHeaders answers with
  // a header block of `header_bytes` (status line through the blank line).
  explicit MisbehavingServer(Mode mode, int interval_ms = 100, size_t header_bytes = 70 * 1024);
  ~MisbehavingServer();
  MisbehavingServer(const MisbehavingServer&) = delete;
  MisbehavingServer& operator=(const MisbehavingServer&) = delete;
  uint16_t port() const { return port_; }
  // Connections accepted and requests (header blocks) received so far.
  uint64_t connections() const { return connections_.load(); }
  uint64_t requests() const { return requests_.load(); }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

 private:
  void Loop();

  Mode mode_;
  int interval_ms_;
  size_t header_bytes_;
  std::atomic<uint64_t> connections_{0};
  std::atomic<uint64_t> requests_{0};
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace uringload::testing
