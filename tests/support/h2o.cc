#include "tests/support/h2o.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "tests/support/ports.h"

namespace uringload::testing {

H2oServer::H2oServer(const H2oOptions& options) {
  char dir_template[] = "/tmp/uringload-h2o-XXXXXX";
  prefix_ = mkdtemp(dir_template);
  chmod(prefix_.c_str(), 0755);  // h2o reads the file as `nobody` (it refuses to serve as root).
  port_ = FreePort();
  tls_ = !options.tls_cert.empty();
  std::filesystem::create_directory(prefix_ + "/www");
  std::ofstream(prefix_ + "/www/index.txt") << "hello from h2o";
  std::string ssl = tls_ ? absl::StrCat("  ssl:\n    certificate-file: ", options.tls_cert,
                                        "\n    key-file: ", options.tls_key, "\n")
                         : "";
  std::ofstream(prefix_ + "/h2o.conf") << absl::StrCat(
      "user: nobody\nnum-threads: 1\nerror-log: ", prefix_, "/error.log\naccess-log: ", prefix_,
      "/access.log\nlisten:\n  host: 127.0.0.1\n  port: ", port_, "\n", ssl,
      "hosts:\n  default:\n    paths:\n      /:\n        file.dir: ", prefix_,
      "/www\n        file.index: [index.txt]\n");
  process_ = std::make_unique<BackgroundProcess>(
      std::vector<std::string>{"/usr/bin/h2o", "-c", prefix_ + "/h2o.conf"});
  // h2o's master holds the listener; it must be on our port, not someone else's.
  for (int tries = 0; tries < 200 && !ok_ && process_->running(); ++tries) {
    ok_ = ListensOn(process_->pid(), port_);
    if (!ok_) usleep(50'000);
  }
}

H2oServer::~H2oServer() {
  process_->Stop(SIGTERM);
  std::error_code ignored;
  std::filesystem::remove_all(prefix_, ignored);
}

std::string H2oServer::Url(const std::string& path) const {
  return absl::StrCat(tls_ ? "https://" : "http://", "127.0.0.1:", port_, path);
}

uint64_t H2oServer::RequestsLogged() const { return RequestsLoggedWith(""); }

uint64_t H2oServer::RequestsLoggedWith(const std::string& protocol) const {
  std::ifstream in(prefix_ + "/access.log");
  uint64_t lines = 0;
  // The combined format: ... "GET /?7 HTTP/2" 200 ...
  for (std::string line; std::getline(in, line);) {
    if (protocol.empty() || line.find(" " + protocol + "\" ") != std::string::npos) ++lines;
  }
  return lines;
}

}  // namespace uringload::testing
