#include "cli/cli_util.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace uringload::cli {

CLI::Validator WholeNumber() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int64_t value = 0;
        if (absl::SimpleAtoi(text, &value)) return "";
        return "'" + text + "' is not a whole number between " + std::to_string(INT64_MIN) +
               " and " + std::to_string(INT64_MAX);
      },
      "");
}

void RequireWholeNumbers(CLI::App* app, std::initializer_list<const char*> names) {
  for (const char* name : names) app->get_option(name)->check(WholeNumber());
}

void SetRepeatPolicy(CLI::App* app, std::initializer_list<const char*> repeatable) {
  for (CLI::Option* option : app->get_options()) {
    option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  for (const char* name : repeatable) {
    app->get_option(name)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->expected(1)
        ->allow_extra_args(false);
  }
}

void PrintError(const std::string& message) {
  std::cerr << "uringload: error: " << message << "\n";
}

int Fail(const absl::Status& status, int exit_code) {
  PrintError(std::string(status.message()));
  return exit_code;
}

bool SaturationFails(const std::string& reason, bool thresholds, bool allow_saturated) {
  if (reason.empty()) return false;
  std::cerr << "uringload: warning: the client, not the server, limited this run: " << reason
            << "\n";
  if (!thresholds || allow_saturated) return false;
  PrintError("--fail-if: a saturated run fails its thresholds (--allow-saturated accepts it)");
  return true;
}

absl::StatusOr<OutputFile> OutputFile::Open(const std::string& flag, const std::string& path) {
  OutputFile file;
  file.flag_ = flag;
  file.path_ = path;
  if (path.empty() || path == "-") return file;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " '", path, "' is a directory"));
  }
  // No O_TRUNC: an existing file keeps its contents until the result replaces them.
  file.fd_ = net::UniqueFd(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (file.fd_.get() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " '", path, "' cannot be written: ", strerror(errno)));
  }
  return file;
}

bool OutputFile::Write(const std::string& text) {
  if (path_.empty()) return true;
  if (path_ == "-") {
    std::cout << text << std::flush;
    return true;
  }
  // A device (/dev/null, a pipe) cannot be truncated and needs not be.
  if (ftruncate(fd_.get(), 0) != 0 && errno != EINVAL) {
    PrintError(absl::StrCat("cannot write ", flag_, " '", path_, "': ", strerror(errno)));
    return false;
  }
  return WriteAt(text, 0);
}

bool OutputFile::Append(const std::string& text) {
  if (path_.empty()) return true;
  if (path_ == "-") {
    std::cout << text << std::flush;
    return true;
  }
  if (appended_ == 0 && !Write(text)) return false;
  if (appended_ != 0 && !WriteAt(text, appended_)) return false;
  appended_ += text.size();
  return true;
}

bool OutputFile::WriteAt(const std::string& text, size_t offset) {
  bool ok = true;
  for (size_t done = 0; ok && done < text.size();) {
    ssize_t n = pwrite(fd_.get(), text.data() + done, text.size() - done,
                       static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  if (!ok) PrintError(absl::StrCat("cannot write ", flag_, " '", path_, "': ", strerror(errno)));
  return ok;
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
