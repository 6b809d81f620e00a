#include "tests/support/grpc_server.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>

#include "tests/support/ports.h"

namespace uringload::testing {

GrpcServer::GrpcServer(std::vector<std::string> flags) {
  port_ = FreePort();
  tls_ = std::find(flags.begin(), flags.end(), "--tls-cert") != flags.end();
  std::vector<std::string> argv = {
      "/usr/bin/python3", URINGLOAD_SOURCE_DIR "/tests/support/grpc_server.py",
      "--port",           std::to_string(port_),
      "--counts",         folder_.Path("counts.json")};
  argv.insert(argv.end(), flags.begin(), flags.end());
  process_ = std::make_unique<BackgroundProcess>(argv);
  // grpcio takes a second or so to start.
  for (int tries = 0; tries < 400 && !ok_ && process_->running(); ++tries) {
    ok_ = ListensOn(process_->pid(), port_);
    if (!ok_) usleep(25'000);
  }
}

GrpcServer::~GrpcServer() { Stop(); }

std::string GrpcServer::Url() const {
  return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_);
}

FlatJson GrpcServer::Stop() {
  if (process_ == nullptr) return {};
  process_->Stop(SIGTERM);
  process_.reset();
  return ReadFlatJson(folder_.Path("counts.json"));
}

std::string ShopProto() { return URINGLOAD_SOURCE_DIR "/tests/e2e/data/shop.proto"; }

}  // namespace uringload::testing
