// RawClient: a blocking TCP client on 127.0.0.1 for byte-exact protocol tests (pipelining,
// HTTP/1.0), with a 10 s receive timeout so a broken server fails the test instead of hanging.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace uringload::testing {

class RawClient {
 public:
  explicit RawClient(uint16_t port);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  bool Send(std::string_view bytes);
  // Exactly n bytes, or fewer if the peer closed or the timeout passed.
  std::string ReadExactly(size_t n);
  // Everything until the peer closes (or the timeout passes).
  std::string ReadUntilClose();

 private:
  int fd_ = -1;
};

}  // namespace uringload::testing
