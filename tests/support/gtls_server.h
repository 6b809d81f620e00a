// GtlsServer: ngtcp2's own example HTTP/3 server (Debian's ngtcp2-server, `gtlsserver`: ngtcp2
// and nghttp3 over GnuTLS), serving one small file from a temporary document root on a free
// 127.0.0.1 UDP port with the test's certificate; stopped when the object goes away. Its
// debug log names each request's stream, so the requests it received can be counted.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace uringload::testing {

class GtlsServer {
 public:
  // On a free port of 127.0.0.1; or, given `wrapper` (`ip netns exec NS`), on `address`:`port`
  // inside it.
  GtlsServer(const std::string& tls_cert, const std::string& tls_key,
             const std::vector<std::string>& wrapper = {}, const std::string& address = "",
             uint16_t port = 0);
  ~GtlsServer();
  GtlsServer(const GtlsServer&) = delete;
  GtlsServer& operator=(const GtlsServer&) = delete;
  // Its UDP socket holds the port.
  bool ok() const { return ok_; }
  // The URL of its one file, "hello\n".
  std::string Url() const;
  uint64_t RequestsReceived() const;

 private:
  std::string prefix_;
  std::string address_;
  uint16_t port_ = 0;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
