// Helpers shared by the subcommands: one-line errors, writing results, stop signals.
#pragma once

#include <signal.h>

#include <string>

namespace uringload::cli {

inline constexpr int kUsageError = 2;
inline constexpr int kRuntimeError = 1;

// "uringload: error: <message>" on stderr.
void PrintError(const std::string& message);
// Writes `text` to `path` ("-" = stdout); prints an error and returns false on failure.
bool WriteOutput(const std::string& path, const std::string& text);

// Blocks SIGINT and SIGTERM in the calling thread and the threads it starts later, so they
// can be collected with WaitForStopSignal: no signal handler, no global state.
sigset_t BlockStopSignals();
// The stop signal that arrived within `timeout_ms`, or 0.
int WaitForStopSignal(const sigset_t& signals, int timeout_ms);

}  // namespace uringload::cli
