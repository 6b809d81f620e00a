// NginxServer: a real nginx (Debian's /usr/sbin/nginx) configured by the test in a temporary
// prefix and listening on a free 127.0.0.1 port (and a Unix socket, if asked), stopped when the
// object goes away.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace uringload::testing {

struct NginxOptions {
  int keepalive_requests = 1'000'000;  // nginx closes a connection after this many.
  std::string body = "hello from nginx";
  bool ipv6 = false;          // Listen on [::1] instead of 127.0.0.1.
  std::string tls_cert = {};  // With tls_key: HTTPS (ssl) on the port.
  std::string tls_key = {};
  // HTTP/2 on the port: by ALPN beside HTTP/1.1 with TLS, else h2c with prior knowledge only.
  bool http2 = false;
  uint64_t file_size = 0;    // Non-zero: /file answers a file of this many bytes.
  bool unix_socket = false;  // Also listen on a Unix socket in its prefix (UnixSocket()).
  // Non-zero: /stream/ proxies to this 127.0.0.1 port over HTTP/1.1, unbuffered (what a
  // streamed answer needs: each piece goes on as it comes).
  uint16_t stream_upstream = 0;
};

class NginxServer {
 public:
  explicit NginxServer(const NginxOptions& options = {});
  ~NginxServer();
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  std::string Url(const std::string& path) const;
  // The Unix socket's path (with NginxOptions::unix_socket).
  std::string UnixSocket() const { return prefix_ + "/nginx.sock"; }
  // Requests nginx logged (its access log: one line per request it answered).
  uint64_t RequestsLogged() const;
  // The request target (path and query) of every logged request, in log order.
  std::vector<std::string> PathsLogged() const;
  // The sizes of the files PUT under /put/ (nginx's WebDAV PUT stores each request's body).
  std::vector<uint64_t> PutFileSizes() const;
  // Logged requests whose protocol was `protocol` ("HTTP/2.0", "HTTP/1.1").
  uint64_t RequestsLoggedWith(const std::string& protocol) const;
  // The body bytes nginx sent for each logged request, in log order.
  std::vector<uint64_t> BodyBytesLogged() const;

 private:
  std::string prefix_;
  uint16_t port_ = 0;
  bool ok_ = false;
  bool ipv6_ = false;
  bool tls_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
