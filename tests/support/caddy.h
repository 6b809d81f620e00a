// CaddyServer: Debian's caddy (Go's TLS and quic-go: an HTTP/3 server nobody here wrote),
// configured by the test in a temporary prefix: HTTPS on a free 127.0.0.1 port with the
// test's certificate, HTTP/1.1, HTTP/2 and HTTP/3 (UDP on the same port), answering "hello"
// at every path (or as the test's own site directives say), each request a line of its JSON
// access log; stopped when the object goes away.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tests/support/process.h"

namespace uringload::testing {

class CaddyServer {
 public:
  // `site`: Caddyfile directives of the site instead of `respond "hello"`. `bind`: false
  // leaves the listeners on the wildcard address, where caddy, without SNI, finds no
  // certificate for a client that names the server by its address.
  CaddyServer(const std::string& tls_cert, const std::string& tls_key,
              const std::string& site = "respond \"hello\"", bool bind = true);
  ~CaddyServer();
  CaddyServer(const CaddyServer&) = delete;
  CaddyServer& operator=(const CaddyServer&) = delete;
  // Its TCP and UDP sockets hold the port (no one else's server answers instead).
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  std::string Url(const std::string& path) const;
  // Stops caddy: its access log is then complete (it writes a request's line after the
  // response went out, so a client can be done before the last line is).
  void Stop();
  // Requests logged, and those whose `proto` is `protocol` ("HTTP/3.0", "HTTP/2.0").
  uint64_t RequestsLogged() const;
  uint64_t RequestsLoggedWith(const std::string& protocol) const;

 private:
  std::string prefix_;
  uint16_t port_ = 0;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
