// Starts the built `uringload serve` on a free 127.0.0.1 port for end-to-end tests and reads
// its exit summary (JSON) when stopped. With --http3 among the flags the port is UDP's.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {

class UringloadServer {
 public:
  // Listens on `ports` consecutive ports (a port range) starting at port().
  explicit UringloadServer(std::vector<std::string> flags = {}, int ports = 1)
      : port_(FreePortRange(ports)), ports_(ports) {
    char path[] = "/tmp/uringload-serve-XXXXXX";
    close(mkstemp(path));
    json_path_ = path;
    std::string listen = "127.0.0.1:" + std::to_string(port_);
    if (ports > 1) listen += "-" + std::to_string(port_ + ports - 1);
    std::vector<std::string> argv = {UringloadBinary(), "serve",    "--listen", listen,
                                     "--json",          json_path_, "--quiet"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    process_ = std::make_unique<BackgroundProcess>(argv);
    bool udp = std::find(flags.begin(), flags.end(), "--http3") != flags.end();
    // Our process must hold every listener: a port that answers while someone else holds it
    // would let the test pass against the wrong server (serve itself refuses such a port).
    ok_ = true;
    for (int i = 0; i < ports && ok_; ++i) {
      bool ours = false;
      for (int tries = 0; tries < 200 && !ours && process_->running(); ++tries) {
        auto port = static_cast<uint16_t>(port_ + i);
        ours = udp ? ReceivesUdpOn(process_->pid(), port) : ListensOn(process_->pid(), port);
        if (!ours) usleep(50'000);
      }
      ok_ = ours;
    }
  }
  ~UringloadServer() {
    process_->Stop(SIGKILL);
    unlink(json_path_.c_str());
  }

  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  pid_t pid() const { return process_->pid(); }
  // The URL of every port: "http://127.0.0.1:P-Q/path" when there are several.
  std::string Url(const std::string& path) const {
    std::string ports = std::to_string(port_);
    if (ports_ > 1) ports += "-" + std::to_string(port_ + ports_ - 1);
    return "http://127.0.0.1:" + ports + path;
  }
  // The same over TLS (--tls-cert): "https://127.0.0.1:P/path".
  std::string HttpsUrl(const std::string& path) const {
    return "https://127.0.0.1:" + std::to_string(port_) + path;
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
  int ports_;
  std::string json_path_;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
