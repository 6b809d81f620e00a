// Child processes for end-to-end tests: run a command to completion capturing its output,
// or keep a server running until the object goes away (SIGTERM, then SIGKILL).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace uringload::testing {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed by one.
  std::string out;
  std::string err;
};

// Runs argv[0] with argv, waits at most `timeout_seconds` (then kills it).
ProcessResult RunProcess(const std::vector<std::string>& argv, int timeout_seconds = 120);

class BackgroundProcess {
 public:
  // `stderr_path`, when given, receives the process' standard error.
  explicit BackgroundProcess(const std::vector<std::string>& argv,
                             const std::string& stderr_path = "");
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // Sends `signal` and waits for the exit; returns the exit code (128 + signal if killed).
  // After 10 s it prints why the process may not have ended (its signal masks, each thread's
  // state), then kills it.
  int Stop(int signal);
  // Waits for the process to end by itself (at most `timeout_seconds`, then SIGKILL).
  int Wait(int timeout_seconds);

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

}  // namespace uringload::testing
