#include "core/run_command.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "core/cli_util.h"
#include "core/engine.h"
#include "exporters/run_report.h"

namespace uringload::cli {
namespace {

// Waits for the engine, drawing progress once a second on a terminal, and turns the first
// SIGINT/SIGTERM into a graceful stop. Returns the signal that stopped the run, or 0.
int SuperviseRun(core::Engine& engine, const core::RunPlan& plan, const sigset_t& signals,
                 bool show_progress) {
  int stopped_by = 0;
  absl::Time next_progress = absl::Now() + absl::Seconds(1);
  while (!engine.Done()) {
    int sig = WaitForStopSignal(signals, 100);
    if (sig != 0) {
      if (stopped_by != 0 && sig == SIGINT) _exit(128 + SIGINT);  // Second ^C: leave now.
      stopped_by = sig;
      engine.RequestStop();
    }
    if (show_progress && absl::Now() >= next_progress) {
      std::fprintf(
          stderr, "\r%s\x1b[K",
          exporters::FormatProgress(engine.Snapshot(), engine.Elapsed(), plan.requests).c_str());
      next_progress += absl::Seconds(1);
    }
  }
  if (show_progress) std::fprintf(stderr, "\r\x1b[K");
  return stopped_by;
}

}  // namespace

CLI::App* AddRunCommand(CLI::App& app, RunCommandOptions& options) {
  CLI::App* run = app.add_subcommand("run", "Send HTTP/1.1 requests to a URL and report");
  core::RunOptions& o = options.run;
  run->add_option("url", o.url, "http://host[:port]/path; {i} is replaced by the request index")
      ->required();
  run->add_option("-n,--requests", o.requests, "Exact number of requests (default 1000)");
  run->add_option("-d,--duration", o.duration, "Stop starting requests after this (e.g. 30s)");
  run->add_option("-c,--concurrency", o.concurrency, "Requests in flight = connections")
      ->capture_default_str();
  run->add_option("-t,--threads", o.threads, "Worker threads (default: online CPUs, <= C)");
  run->add_option("-m,--method", o.method, "Request method")->capture_default_str();
  run->add_option("-H,--header", o.headers, "Extra header 'Name: value' (repeatable)");
  run->add_option("--body", o.body, "Request body");
  run->add_option("--body-file", o.body_file, "Request body read from a file");
  run->add_option("--timeout", o.timeout, "Per request, send to complete response")
      ->capture_default_str();
  run->add_option("--connect-timeout", o.connect_timeout, "Per connection attempt")
      ->capture_default_str();
  run->add_flag("--no-keepalive", o.no_keepalive, "A new connection per request");
  run->add_option("--batch-window", o.batch_window,
                  "Max wait to batch completions (0 = none); may add this much to latencies")
      ->capture_default_str();
  run->add_option("--json", options.json_path, "Write the result as JSON (- for stdout)");
  run->add_flag("-q,--quiet", options.quiet, "No summary, no progress");
  // A repeated flag takes its last value, so scripts can append overrides to defaults.
  for (CLI::Option* option : run->get_options()) {
    option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  run->get_option("--header")->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  return run;
}

int RunCommand(const RunCommandOptions& options) {
  absl::StatusOr<core::RunPlan> plan = core::MakeRunPlan(options.run);
  if (!plan.ok()) {
    PrintError(std::string(plan.status().message()));
    return kUsageError;
  }
  sigset_t signals = BlockStopSignals();  // Before the workers start: they inherit it.
  core::Engine engine(*plan);
  if (absl::Status s = engine.Start(); !s.ok()) {
    PrintError(std::string(s.message()));
    return kRuntimeError;
  }
  bool show_progress = !options.quiet && isatty(STDERR_FILENO);
  int stopped_by = SuperviseRun(engine, *plan, signals, show_progress);
  absl::StatusOr<core::RunResult> result = engine.Wait();
  if (!result.ok()) {
    PrintError(std::string(result.status().message()));
    return kRuntimeError;
  }
  exporters::RunReport report{.target = options.run.url,
                              .planned = plan->requests,
                              .concurrency = plan->concurrency,
                              .threads = plan->threads,
                              .result = &*result};
  if (!options.quiet && options.json_path != "-") {
    std::cout << exporters::FormatRunSummary(report) << std::flush;
  }
  if (!options.json_path.empty() &&
      !WriteOutput(options.json_path, exporters::RunResultToJson(report))) {
    return kRuntimeError;
  }
  return stopped_by != 0 ? 128 + stopped_by : 0;
}

}  // namespace uringload::cli
