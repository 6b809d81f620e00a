#include "core/cli_util.h"

#include <pthread.h>
#include <time.h>

#include <fstream>
#include <iostream>

namespace uringload::cli {

void PrintError(const std::string& message) {
  std::cerr << "uringload: error: " << message << "\n";
}

bool WriteOutput(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return true;
  }
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    PrintError("cannot write '" + path + "'");
    return false;
  }
  return true;
}

sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

int WaitForStopSignal(const sigset_t& signals, int timeout_ms) {
  timespec wait{.tv_sec = timeout_ms / 1000, .tv_nsec = (timeout_ms % 1000) * 1'000'000L};
  int sig = sigtimedwait(&signals, nullptr, &wait);
  return sig == SIGINT || sig == SIGTERM ? sig : 0;
}

}  // namespace uringload::cli
