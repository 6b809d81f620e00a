#include "tests/support/shop.h"

#include <signal.h>
#include <unistd.h>

#include "tests/support/ports.h"

namespace uringload::testing {

ShopServer::ShopServer(int cookie_max_age, bool api_port) {
  port_ = FreePort();
  std::vector<std::string> argv = {
      "/usr/bin/python3", URINGLOAD_SOURCE_DIR "/tests/support/shop_server.py",
      "--port",           std::to_string(port_),
      "--cookie-max-age", std::to_string(cookie_max_age),
      "--counts",         folder_.Path("counts.json")};
  if (api_port) {
    do {
      api_port_ = FreePort();
    } while (api_port_ == port_);
    argv.insert(argv.end(), {"--api-port", std::to_string(api_port_)});
  }
  process_ = std::make_unique<BackgroundProcess>(argv);
  for (int tries = 0; tries < 200 && !ok_ && process_->running(); ++tries) {
    ok_ = ListensOn(process_->pid(), port_) && (!api_port || ListensOn(process_->pid(), api_port_));
    if (!ok_) usleep(25'000);
  }
}

ShopServer::~ShopServer() { Stop(); }

std::string ShopServer::Url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

FlatJson ShopServer::Stop() {
  if (process_ == nullptr) return {};
  process_->Stop(SIGTERM);
  process_.reset();
  return ReadFlatJson(folder_.Path("counts.json"));
}

}  // namespace uringload::testing
