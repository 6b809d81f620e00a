// StreamServer: tests/support/stream_server.py (aiohttp answering in pieces: a head before its
// body, server-sent events) on a free 127.0.0.1 port, checked to be the one listening there;
// Stop() ends it and reads how many requests it answered.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tests/support/flat_json.h"
#include "tests/support/nginx.h"
#include "tests/support/process.h"
#include "tests/support/temp_folder.h"

namespace uringload::testing {

class StreamServer {
 public:
  StreamServer();
  ~StreamServer();
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  std::string Url(const std::string& path) const;
  // Stops the server; its counts ("requests"), or none if it wrote none.
  FlatJson Stop();
  // What puts it behind a proxy that passes each piece on as it comes, over TLS with the
  // shared test certificate: nginx (HTTP/1.1 and h2 by ALPN; /stream/ is this server, with
  // proxy_buffering off) and caddy's site directives (reverse_proxy, flush_interval -1).
  NginxOptions BehindNginx() const;
  std::string BehindCaddy() const;

 private:
  TempFolder folder_{"uringload-streams"};
  uint16_t port_ = 0;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
