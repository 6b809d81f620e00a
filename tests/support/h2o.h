// H2oServer: a real h2o (Debian's /usr/bin/h2o) configured by the test in a temporary prefix,
// listening on a free 127.0.0.1 port (TLS when given a certificate, else cleartext, where it
// speaks h2c with prior knowledge beside HTTP/1.1), serving one small file at every path;
// stopped when the object goes away.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tests/support/process.h"

namespace uringload::testing {

struct H2oOptions {
  std::string tls_cert = {};  // With tls_key: TLS on the port (h2 and HTTP/1.1 by ALPN).
  std::string tls_key = {};
};

class H2oServer {
 public:
  explicit H2oServer(const H2oOptions& options = {});
  ~H2oServer();
  bool ok() const { return ok_; }
  std::string Url(const std::string& path) const;
  // Requests h2o logged, and those whose request line ends with `protocol` ("HTTP/2").
  uint64_t RequestsLogged() const;
  uint64_t RequestsLoggedWith(const std::string& protocol) const;

 private:
  std::string prefix_;
  uint16_t port_ = 0;
  bool ok_ = false;
  bool tls_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
