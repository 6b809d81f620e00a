#include "tests/support/caddy.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/ports.h"

namespace uringload::testing {

CaddyServer::CaddyServer(const std::string& tls_cert, const std::string& tls_key,
                         const std::string& site, bool bind) {
  char dir_template[] = "/tmp/uringload-caddy-XXXXXX";
  prefix_ = mkdtemp(dir_template);
  port_ = FreePort();
  // `bind`: the QUIC listener on 127.0.0.1, not the wildcard. Without SNI (an address as the
  // host) caddy picks the certificate by the local address, which a wildcard UDP socket
  // does not know.
  std::ofstream(prefix_ + "/Caddyfile") << absl::StrCat(
      "{\n\tauto_https off\n\tadmin off\n\tstorage file_system ", prefix_,
      "/data\n\tservers {\n\t\tprotocols h1 h2 h3\n\t}\n}\n", "https://127.0.0.1:", port_, " {\n\t",
      bind ? "bind 127.0.0.1" : "", "\n\ttls ", tls_cert, " ", tls_key, "\n\t", site, "\n",
      "\tlog {\n\t\toutput file ", prefix_, "/access.log\n\t\tformat json\n\t}\n}\n");
  // Its state (autosaved config, certificates) stays in the prefix, not in $HOME.
  process_ = std::make_unique<BackgroundProcess>(
      std::vector<std::string>{"/usr/bin/env", "HOME=" + prefix_, "XDG_DATA_HOME=" + prefix_,
                               "XDG_CONFIG_HOME=" + prefix_, "/usr/bin/caddy", "run", "--config",
                               prefix_ + "/Caddyfile", "--adapter", "caddyfile"},
      prefix_ + "/caddy.log");
  for (int tries = 0; tries < 200 && !ok_ && process_->running(); ++tries) {
    ok_ = ListensOn(process_->pid(), port_) && ReceivesUdpOn(process_->pid(), port_);
    if (!ok_) usleep(50'000);
  }
}

void CaddyServer::Stop() { process_->Stop(SIGTERM); }

CaddyServer::~CaddyServer() {
  process_->Stop(SIGTERM);
  std::error_code ignored;
  std::filesystem::remove_all(prefix_, ignored);
}

std::string CaddyServer::Url(const std::string& path) const {
  return absl::StrCat("https://127.0.0.1:", port_, path);
}

uint64_t CaddyServer::RequestsLogged() const {
  std::ifstream in(prefix_ + "/access.log");
  uint64_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

uint64_t CaddyServer::RequestsLoggedWith(const std::string& protocol) const {
  std::ifstream in(prefix_ + "/access.log");
  uint64_t lines = 0;
  std::string field = absl::StrCat("\"proto\":\"", protocol, "\"");
  for (std::string line; std::getline(in, line);) {
    if (line.find(field) != std::string::npos) ++lines;
  }
  return lines;
}

}  // namespace uringload::testing
