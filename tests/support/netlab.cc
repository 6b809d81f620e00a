#include "tests/support/netlab.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/support/uringload_binary.h"

namespace uringload::testing {

NetLab::NetLab(std::vector<std::string> link_flags) {
  static std::atomic<int> count{0};
  char folder_template[] = "/tmp/uringload-netlab-XXXXXX";
  folder_ = mkdtemp(folder_template);
  name_ = "ul" + std::to_string(getpid()) + "-" + std::to_string(count++);
  a_ = name_ + "-a";
  b_ = name_ + "-b";
  stop_file_ = folder_ + "/stop";
  link_json_ = folder_ + "/link.json";
  std::string ready = folder_ + "/ready";
  std::vector<std::string> argv = {"env",
                                   std::string("URINGLOAD_BIN=") + UringloadBinary(),
                                   URINGLOAD_SOURCE_DIR "/scripts/netlab",
                                   "--name",
                                   name_,
                                   "--ready",
                                   ready,
                                   "--json",
                                   link_json_};
  argv.insert(argv.end(), link_flags.begin(), link_flags.end());
  // The command the laboratory lives for: until the stop file appears, at most 10 minutes.
  argv.insert(argv.end(), {"--", "bash", "-c",
                           "for _ in $(seq 12000); do [ -e " + stop_file_ +
                               " ] && exit 0; sleep 0.05; done; exit 1"});
  process_ = std::make_unique<BackgroundProcess>(argv);
  for (int tries = 0; tries < 400 && process_->running(); ++tries) {
    std::ifstream in(ready);
    if (in >> link_pid_) {
      ok_ = true;
      break;
    }
    usleep(25'000);
  }
}

NetLab::~NetLab() {
  Finish();
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

std::vector<std::string> NetLab::In(const std::string& ns, std::vector<std::string> argv) {
  std::vector<std::string> full = {"ip", "netns", "exec", ns};
  full.insert(full.end(), argv.begin(), argv.end());
  return full;
}

int NetLab::Finish() {
  if (process_ == nullptr) return exit_code_;
  std::ofstream(stop_file_) << "stop\n";
  exit_code_ = process_->Wait(60);
  process_.reset();
  return exit_code_;
}

absl::StatusOr<FlatJson> NetLab::LinkCounts() const {
  std::ifstream in(link_json_);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return FlattenJson(text);
}

void NetLab::Signal(int signal) const {
  if (process_ != nullptr) kill(process_->pid(), signal);
}

bool NetLab::LeftBehind() const {
  return std::filesystem::exists("/var/run/netns/" + a_) ||
         std::filesystem::exists("/var/run/netns/" + b_) ||
         (link_pid_ > 0 && kill(link_pid_, 0) == 0);
}

}  // namespace uringload::testing
