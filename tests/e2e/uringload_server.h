// Starts the built `uringload serve` on a free 127.0.0.1 port for end-to-end tests and reads
// its exit summary (JSON) when stopped.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"

namespace uringload::testing {

class UringloadServer {
 public:
  explicit UringloadServer(std::vector<std::string> flags = {}) : port_(FreePort()) {
    char path[] = "/tmp/uringload-serve-XXXXXX";
    close(mkstemp(path));
    json_path_ = path;
    std::vector<std::string> argv = {
        URINGLOAD_BINARY, "serve",    "--listen", "127.0.0.1:" + std::to_string(port_),
        "--json",         json_path_, "--quiet"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    process_ = std::make_unique<BackgroundProcess>(argv);
    ok_ = WaitForListener(port_);
  }
  ~UringloadServer() {
    process_->Stop(SIGKILL);
    unlink(json_path_.c_str());
  }

  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // SIGTERM, then the exit status and the JSON summary.
  int Stop(FlatJson* summary) {
    int code = process_->Stop(SIGTERM);
    std::ifstream in(json_path_);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    absl::StatusOr<FlatJson> json = FlattenJson(text);
    if (json.ok()) *summary = *json;
    return code;
  }

 private:
  uint16_t port_;
  std::string json_path_;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
