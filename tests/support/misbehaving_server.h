// MisbehavingServer: a thread that accepts on 127.0.0.1 and answers every request badly on
// purpose: dribbling a response one byte per interval, or sending headers over 64 KiB.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace uringload::testing {

class MisbehavingServer {
 public:
  enum class Mode { kDribble, kHugeHeaders };

  // kDribble sends one byte of a valid response every `interval_ms`.
  MisbehavingServer(Mode mode, int interval_ms = 100);
  ~MisbehavingServer();
  MisbehavingServer(const MisbehavingServer&) = delete;
  MisbehavingServer& operator=(const MisbehavingServer&) = delete;
  uint16_t port() const { return port_; }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

 private:
  void Loop();

  Mode mode_;
  int interval_ms_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace uringload::testing
