#include "tests/support/gtls_server.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/ports.h"

namespace uringload::testing {

GtlsServer::GtlsServer(const std::string& tls_cert, const std::string& tls_key,
                       const std::vector<std::string>& wrapper, const std::string& address,
                       uint16_t port) {
  char dir_template[] = "/tmp/uringload-gtls-XXXXXX";
  prefix_ = mkdtemp(dir_template);
  std::filesystem::create_directory(prefix_ + "/htdocs");
  std::ofstream(prefix_ + "/htdocs/hello") << "hello\n";
  address_ = address.empty() ? "127.0.0.1" : address;
  port_ = port != 0 ? port : FreePort();
  std::vector<std::string> argv = wrapper;
  argv.insert(argv.end(),
              {"/usr/sbin/gtlsserver", "--no-quic-dump", "--no-http-dump", "-d",
               prefix_ + "/htdocs", address_, std::to_string(port_), tls_key, tls_cert});
  process_ = std::make_unique<BackgroundProcess>(argv, prefix_ + "/server.log");
  for (int tries = 0; tries < 200 && !ok_ && process_->running(); ++tries) {
    ok_ = ReceivesUdpOn(process_->pid(), port_);
    if (!ok_) usleep(50'000);
  }
  if (!ok_) {  // Why it did not start, for the test's failure.
    std::ifstream in(prefix_ + "/server.log");
    for (std::string line; std::getline(in, line);)
      fprintf(stderr, "gtlsserver: %s\n", line.c_str());
  }
}

GtlsServer::~GtlsServer() {
  process_->Stop(SIGTERM);
  std::error_code ignored;
  std::filesystem::remove_all(prefix_, ignored);
}

std::string GtlsServer::Url() const {
  return absl::StrCat("https://", address_, ":", port_, "/hello");
}

uint64_t GtlsServer::RequestsReceived() const {
  std::ifstream in(prefix_ + "/server.log");
  uint64_t requests = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("request headers started") != std::string::npos) ++requests;
  }
  return requests;
}

}  // namespace uringload::testing
