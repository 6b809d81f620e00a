#include "tests/support/stream_server.h"

#include <signal.h>
#include <unistd.h>

#include "tests/support/ports.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {

StreamServer::StreamServer() {
  port_ = FreePort();
  process_ = std::make_unique<BackgroundProcess>(std::vector<std::string>{
      "/usr/bin/python3", URINGLOAD_SOURCE_DIR "/tests/support/stream_server.py", "--port",
      std::to_string(port_), "--counts", folder_.Path("counts.json")});
  for (int tries = 0; tries < 400 && !ok_ && process_->running(); ++tries) {
    ok_ = ListensOn(process_->pid(), port_);
    if (!ok_) usleep(25'000);
  }
}

StreamServer::~StreamServer() { Stop(); }

std::string StreamServer::Url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

NginxOptions StreamServer::BehindNginx() const {
  return {.tls_cert = SharedCert().cert(),
          .tls_key = SharedCert().key(),
          .http2 = true,
          .stream_upstream = port_};
}

std::string StreamServer::BehindCaddy() const {
  return "reverse_proxy 127.0.0.1:" + std::to_string(port_) + " {\n    flush_interval -1\n  }";
}

FlatJson StreamServer::Stop() {
  if (process_ == nullptr) return {};
  process_->Stop(SIGTERM);
  process_.reset();
  return ReadFlatJson(folder_.Path("counts.json"));
}

}  // namespace uringload::testing
