#include "cli/run_command.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli/cli_util.h"
#include "cli/version.h"
#include "core/run/engine.h"
#include "core/run/preflight.h"
#include "exporters/run_report.h"

namespace uringload::cli {
namespace {

struct Supervision {
  int stopped_by = 0;        // The signal that stopped the run early, or 0.
  bool late_signal = false;  // A signal came as the run finished: it only ends the linger.
};

// Waits for the engine, drawing progress once a second on a terminal, and turns the first
// SIGINT/SIGTERM into a graceful stop.
Supervision SuperviseRun(core::Engine& engine, const core::RunPlan& plan, const sigset_t& signals,
                         bool show_progress) {
  int stopped_by = 0;
  absl::Time next_progress = absl::Now() + absl::Seconds(1);
  while (!engine.Done()) {
    int sig = WaitForStopSignal(signals, 100);
    if (sig != 0 && engine.Done()) {  // Too late to interrupt anything: it finished.
      if (show_progress) std::fprintf(stderr, "\r\x1b[K");
      return {.stopped_by = stopped_by, .late_signal = true};
    }
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
  return {.stopped_by = stopped_by};
}

absl::StatusOr<std::unique_ptr<MetricsSession>> StartRunMetrics(const RunCommandOptions& options,
                                                                const core::RunPlan& plan,
                                                                const core::Engine& engine) {
  exporters::RunInfo info{.version = URINGLOAD_VERSION,
                          .target = options.run.url,
                          .threads = plan.threads,
                          .concurrency = plan.concurrency,
                          .planned = plan.requests,
                          .planned_duration_seconds = std::nullopt};
  if (plan.duration.has_value())
    info.planned_duration_seconds = absl::ToDoubleSeconds(*plan.duration);
  return MetricsSession::Start(
      options.metrics, "client", [&engine, &info](exporters::LabelPairs labels) {
        return std::make_shared<exporters::RunCollector>([&engine] { return engine.Snapshot(); },
                                                         [&engine] { return engine.Elapsed(); },
                                                         info, std::move(labels));
      });
}

// Prints the summary and writes the JSON; false if the JSON could not be written.
bool ReportResult(const RunCommandOptions& options, const core::RunPlan& plan,
                  const core::RunResult& result, OutputFile& json) {
  exporters::RunReport report{.target = options.run.url,
                              .planned = plan.requests,
                              .concurrency = plan.concurrency,
                              .requested_concurrency = plan.requested_concurrency,
                              .threads = plan.threads,
                              .result = &result};
  if (!options.quiet && !json.is_stdout()) {
    std::cout << exporters::FormatRunSummary(report) << std::flush;
  }
  return !json.enabled() || json.Write(exporters::RunResultToJson(report));
}

// Prints the preflight checks: all of them with --preflight (stdout), else only problems
// (stderr, as warnings). Returns whether every check passed.
bool RunPreflight(const core::RunPlan& plan, bool report_all) {
  bool all_ok = true;
  for (const core::PreflightCheck& check : core::Preflight(plan, core::ReadMachineLimits(plan))) {
    all_ok = all_ok && check.ok;
    if (report_all) {
      std::cout << (check.ok ? "ok       " : "PROBLEM  ") << check.line << "\n";
    } else if (!check.ok) {
      std::cerr << "uringload: preflight: " << check.line << "\n";
    }
  }
  return all_ok;
}

// Keeps the process (and its /metrics) up for `linger` so the final values get scraped;
// SIGINT or SIGTERM ends it early.
void Linger(const sigset_t& signals, absl::Duration linger) {
  absl::Time until = absl::Now() + linger;
  while (absl::Now() < until && WaitForStopSignal(signals, 100) == 0) {
  }
}

}  // namespace

CLI::App* AddRunCommand(CLI::App& app, RunCommandOptions& options) {
  CLI::App* run = app.add_subcommand("run", "Send HTTP/1.1 requests to a URL and report");
  core::RunOptions& o = options.run;
  run->add_option("url", o.url, "http://host[:port]/path; {i} is replaced by the request index")
      ->required();
  run->add_option(
      "-n,--requests", o.requests,
      absl::StrCat("Exact number of requests (default 1000, at most ", core::kMaxRequests, ")"));
  run->add_option("-d,--duration", o.duration,
                  "Stop starting requests after this (e.g. 30s; at most 8760h)");
  run->add_option("-c,--concurrency", o.concurrency,
                  absl::StrCat("Requests in flight = connections, never more than -n (at most ",
                               core::kMaxConcurrency, ")"))
      ->capture_default_str();
  run->add_option("-t,--threads", o.threads,
                  "Worker threads (default: online CPUs, <= C, more when one descriptor table "
                  "cannot hold C/T connections; at most 1024)");
  run->add_option("-m,--method", o.method, "Request method")->capture_default_str();
  run->add_option("-H,--header", o.headers, "Extra header 'Name: value' (repeatable)");
  run->add_option("--body", o.body, "Request body");
  run->add_option("--body-file", o.body_file, "Request body read from a file");
  run->add_option("--timeout", o.timeout, "Per request, send to complete response (at most 24h)")
      ->capture_default_str();
  run->add_option("--connect-timeout", o.connect_timeout, "Per connection attempt (at most 24h)")
      ->capture_default_str();
  run->add_flag("--no-keepalive", o.no_keepalive, "A new connection per request");
  run->add_option("--source", o.source,
                  "Source addresses: 127.0.0.2,127.0.0.3 or 127.0.0.2-127.0.0.9 or 127.0.0.0/28");
  run->add_option("--max-connecting", o.max_connecting, "Connects in flight per thread (ramp)")
      ->capture_default_str();
  run->add_option("--batch-window", o.batch_window,
                  "Max wait to batch completions (0 = none); may add this much to latencies")
      ->capture_default_str();
  run->add_option("--json", options.json_path, "Write the result as JSON (- for stdout)");
  run->add_flag("-q,--quiet", options.quiet, "No summary, no progress");
  run->add_flag("--preflight", options.preflight_only,
                "Only check this machine's limits for the plan (exit 1 on a problem)");
  AddMetricsFlags(run, options.metrics, /*with_linger=*/true);
  RequireWholeNumbers(run, {"-n", "-c", "-t", "--max-connecting"});
  SetRepeatPolicy(run, {"--header", "--metrics-label"});
  return run;
}

int RunCommand(const RunCommandOptions& options) {
  absl::StatusOr<core::RunPlan> plan = core::MakeRunPlan(options.run);
  if (!plan.ok()) {
    PrintError(std::string(plan.status().message()));
    return kUsageError;
  }
  absl::StatusOr<OutputFile> json = OutputFile::Open("--json", options.json_path);
  if (!json.ok()) {
    PrintError(std::string(json.status().message()));
    return kUsageError;
  }
  bool preflight_ok = RunPreflight(*plan, options.preflight_only);
  if (options.preflight_only) return preflight_ok ? 0 : kRuntimeError;
  sigset_t signals = BlockStopSignals();  // Before the workers start: they inherit it.
  core::Engine engine(*plan);
  absl::StatusOr<std::unique_ptr<MetricsSession>> metrics = StartRunMetrics(options, *plan, engine);
  if (!metrics.ok()) {
    PrintError(std::string(metrics.status().message()));
    return absl::IsInvalidArgument(metrics.status()) ? kUsageError : kRuntimeError;
  }
  if (absl::Status s = engine.Start(); !s.ok()) {
    PrintError(std::string(s.message()));
    return kRuntimeError;
  }
  bool show_progress = !options.quiet && isatty(STDERR_FILENO);
  Supervision supervision = SuperviseRun(engine, *plan, signals, show_progress);
  int stopped_by = supervision.stopped_by;
  absl::StatusOr<core::RunResult> result = engine.Wait();
  if (!result.ok()) {
    PrintError(std::string(result.status().message()));
    return kRuntimeError;
  }
  bool written = ReportResult(options, *plan, *result, *json);
  absl::Status pushed = (*metrics)->Finish();
  if (!pushed.ok()) PrintError(std::string(pushed.message()));
  if (stopped_by == 0 && !supervision.late_signal) Linger(signals, (*metrics)->linger());
  if (!written || !pushed.ok()) return kRuntimeError;
  return stopped_by != 0 ? 128 + stopped_by : 0;
}

}  // namespace uringload::cli
