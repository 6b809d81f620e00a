// Helpers shared by the subcommands: one-line errors, writing results, stop signals.
#pragma once

#include <signal.h>

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "net/listener.h"

namespace uringload::cli {

inline constexpr int kUsageError = 2;
inline constexpr int kRuntimeError = 1;
inline constexpr int kThresholdFailed = 3;  // A --fail-if condition held.

// A whole number that fits int64, checked as text before CLI11 converts it (CLI11 clamps
// 99999999999999999999 to INT64_MAX without a word). Ranges are the plans' to check.
CLI::Validator WholeNumber();
// Adds WholeNumber() to each named option of `app`.
void RequireWholeNumbers(CLI::App* app, std::initializer_list<const char*> names);

// A repeated flag takes its last value, so scripts can append overrides to defaults; the
// `repeatable` ones collect every value, one per flag.
void SetRepeatPolicy(CLI::App* app, std::initializer_list<const char*> repeatable);

// "uringload: error: <message>" on stderr.
void PrintError(const std::string& message);
// Prints `status`'s message as the command's one error line and returns `exit_code`: each step
// of a command reads `if (!x.ok()) return Fail(x.status());`.
int Fail(const absl::Status& status, int exit_code = kUsageError);

// Says on stderr, whatever --quiet, that the client limited the run (when it did), and
// returns whether that fails the command: with --fail-if thresholds it does (exit 3), unless
// --allow-saturated; a saturated run's numbers are the client's.
bool SaturationFails(const std::string& reason, bool thresholds, bool allow_saturated);

// A file named by an output flag (--json): opened before the run, so a path that cannot be
// written fails with exit 2 before any traffic instead of losing the result at the end, and
// replaced by the result when the run is over. "-" is stdout; an empty path writes nothing.
class OutputFile {
 public:
  OutputFile() = default;
  static absl::StatusOr<OutputFile> Open(const std::string& flag, const std::string& path);
  bool enabled() const { return !path_.empty(); }
  bool is_stdout() const { return path_ == "-"; }
  const std::string& path() const { return path_; }
  // Replaces the file's contents with `text`; prints an error and returns false on failure.
  bool Write(const std::string& text);
  // Adds `text` after what earlier Append calls wrote (the first one empties the file), for
  // records written while the run goes on (--timeline).
  bool Append(const std::string& text);

 private:
  bool WriteAt(const std::string& text, size_t offset);

  std::string flag_;
  std::string path_;
  net::UniqueFd fd_;
  size_t appended_ = 0;
};

// Blocks SIGINT and SIGTERM in the calling thread and the threads it starts later, so they
// can be collected with WaitForStopSignal: no signal handler, no global state.
sigset_t BlockStopSignals();
// The stop signal that arrived within `timeout_ms`, or 0.
int WaitForStopSignal(const sigset_t& signals, int timeout_ms);

}  // namespace uringload::cli
