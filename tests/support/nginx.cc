#include "tests/support/nginx.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "tests/support/ports.h"

namespace uringload::testing {

NginxServer::NginxServer(const NginxOptions& options) {
  char dir_template[] = "/tmp/uringload-nginx-XXXXXX";
  prefix_ = mkdtemp(dir_template);
  port_ = FreePort();
  std::string conf = absl::StrCat(
      "worker_processes 1;\ndaemon off;\nmaster_process off;\nerror_log stderr error;\n", "pid ",
      prefix_, "/nginx.pid;\nevents { worker_connections 30000; }\n",
      "worker_rlimit_nofile 20000;\n", "http {\n  access_log ", prefix_,
      "/access.log;\n  client_body_temp_path ", prefix_, ";\n", "  proxy_temp_path ", prefix_,
      ";\n  fastcgi_temp_path ", prefix_, ";\n", "  uwsgi_temp_path ", prefix_,
      ";\n  scgi_temp_path ", prefix_, ";\n", "  keepalive_requests ", options.keepalive_requests,
      ";\n", "  server {\n    listen ", options.ipv6 ? "[::1]:" : "127.0.0.1:", port_,
      " backlog=4096", options.tls_cert.empty() ? "" : " ssl", options.http2 ? " http2" : "", ";\n",
      options.unix_socket ? absl::StrCat("    listen unix:", prefix_, "/nginx.sock backlog=4096",
                                         options.tls_cert.empty() ? "" : " ssl",
                                         options.http2 ? " http2" : "", ";\n")
                          : "",
      options.tls_cert.empty()
          ? ""
          : absl::StrCat("    ssl_certificate ", options.tls_cert, ";\n    ssl_certificate_key ",
                         options.tls_key, ";\n    ssl_protocols TLSv1.2 TLSv1.3;\n"),
      "    location / { default_type text/plain; return 200 \"", options.body, "\"; }\n",
      options.stream_upstream == 0
          ? ""
          : absl::StrCat(
                "    location /stream/ { proxy_pass http://127.0.0.1:", options.stream_upstream,
                "/; proxy_http_version 1.1; proxy_buffering off; }\n"),
      "    location = /file { alias ", prefix_, "/file.bin; }\n", "    location /put/ { root ",
      prefix_, "; dav_methods PUT; create_full_put_path on; ", "client_max_body_size 64m; }\n",
      "  }\n}\n");
  std::ofstream(prefix_ + "/nginx.conf") << conf;
  if (options.file_size > 0)
    std::ofstream(prefix_ + "/file.bin") << std::string(options.file_size, 'f');
  process_ = std::make_unique<BackgroundProcess>(std::vector<std::string>{
      "/usr/sbin/nginx", "-e", "stderr", "-p", prefix_, "-c", prefix_ + "/nginx.conf"});
  ipv6_ = options.ipv6;
  tls_ = !options.tls_cert.empty();
  // Our nginx must hold the port: one that answers while someone else holds it would let a
  // test pass against the wrong server.
  for (int tries = 0; tries < 200 && !ok_ && process_->running(); ++tries) {
    ok_ = ListensOn(process_->pid(), port_);
    if (!ok_) usleep(50'000);
  }
}

uint64_t NginxServer::RequestsLogged() const {
  std::ifstream in(prefix_ + "/access.log");
  uint64_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

std::vector<std::string> NginxServer::PathsLogged() const {
  std::ifstream in(prefix_ + "/access.log");
  std::vector<std::string> paths;
  // The combined format: ... "GET /path HTTP/1.1" ...
  for (std::string line; std::getline(in, line);) {
    size_t method = line.find('"');
    size_t path = line.find(' ', method);
    size_t end = line.find(' ', path + 1);
    if (method == std::string::npos || path == std::string::npos || end == std::string::npos) {
      paths.push_back("");
      continue;
    }
    paths.push_back(line.substr(path + 1, end - path - 1));
  }
  return paths;
}

std::vector<uint64_t> NginxServer::PutFileSizes() const {
  std::vector<uint64_t> sizes;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(prefix_ + "/put", ignored)) {
    sizes.push_back(entry.file_size());
  }
  return sizes;
}

uint64_t NginxServer::RequestsLoggedWith(const std::string& protocol) const {
  std::ifstream in(prefix_ + "/access.log");
  uint64_t lines = 0;
  // The combined format's request line ends with the protocol: "GET /path HTTP/2.0".
  for (std::string line; std::getline(in, line);) {
    if (line.find(" " + protocol + "\" ") != std::string::npos) ++lines;
  }
  return lines;
}

std::vector<uint64_t> NginxServer::BodyBytesLogged() const {
  std::ifstream in(prefix_ + "/access.log");
  std::vector<uint64_t> bytes;
  // The combined format: ... "GET /path HTTP/2.0" 200 1048576 "referer" ...
  for (std::string line; std::getline(in, line);) {
    size_t request_end = line.find("\" ", line.find('"') + 1);
    uint64_t status = 0;
    uint64_t sent = 0;
    if (request_end == std::string::npos ||
        sscanf(line.c_str() + request_end + 2, "%lu %lu", &status, &sent) != 2) {
      sent = 0;
    }
    bytes.push_back(sent);
  }
  return bytes;
}

NginxServer::~NginxServer() {
  process_->Stop(SIGTERM);
  std::error_code ignored;
  std::filesystem::remove_all(prefix_, ignored);
}

std::string NginxServer::Url(const std::string& path) const {
  return absl::StrCat(tls_ ? "https://" : "http://", ipv6_ ? "[::1]:" : "127.0.0.1:", port_, path);
}

}  // namespace uringload::testing
