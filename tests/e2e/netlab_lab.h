// Helpers for the end-to-end tests over the laboratory (scripts/netlab through NetLab):
// `uringload serve` in side B, `uringload run` in either side, and the URL of side B.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/support/netlab.h"
#include "tests/support/ports.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {

constexpr uint16_t kPort = 8080;  // The namespace is the test's own: nothing else holds it.

// `uringload serve` inside side B of `lab`, listening on its IPv4 and IPv6 addresses.
class LabServer {
 public:
  LabServer(const NetLab& lab, std::vector<std::string> flags) {
    char path[] = "/tmp/uringload-labserve-XXXXXX";
    close(mkstemp(path));
    json_ = path;
    std::vector<std::string> argv = {
        UringloadBinary(),
        "serve",
        "--quiet",
        "-t",
        "1",
        "--json",
        json_,
        "--listen",
        std::string(NetLab::kAddressB) + ":" + std::to_string(kPort),
        "--listen",
        "[" + std::string(NetLab::kAddressB6) + "]:" + std::to_string(kPort)};
    argv.insert(argv.end(), flags.begin(), flags.end());
    process_ = std::make_unique<BackgroundProcess>(NetLab::In(lab.b(), argv));
    for (int tries = 0; tries < 200 && !ok_ && process_->running(); ++tries) {
      ok_ = ListensOn(process_->pid(), kPort);
      if (!ok_) usleep(25'000);
    }
  }
  ~LabServer() { unlink(json_.c_str()); }
  bool ok() const { return ok_; }
  bool running() { return process_->running(); }
  // SIGTERM; the requests it answered.
  uint64_t StopAndCountAnswered() {
    process_->Stop(SIGTERM);
    std::ifstream in(json_);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    absl::StatusOr<FlatJson> json = FlattenJson(text);
    return json.ok() ? JsonCount(*json, "requests.answered") : 0;
  }

 private:
  std::string json_;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

// `uringload run ARGS` inside namespace `ns`, its JSON parsed.
inline RunOutput RunIn(const std::string& ns, std::vector<std::string> args) {
  char path[] = "/tmp/uringload-labrun-XXXXXX";
  close(mkstemp(path));
  std::vector<std::string> argv = {UringloadBinary(), "run", "--quiet", "--json", path};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOutput out;
  out.process = RunProcess(NetLab::In(ns, argv), 120);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path);
  absl::StatusOr<FlatJson> json = FlattenJson(text);
  if (json.ok()) out.json = *json;
  return out;
}

inline std::string Url(const std::string& scheme, const std::string& host) {
  return scheme + "://" + host + ":" + std::to_string(kPort) + "/";
}

}  // namespace uringload::testing
