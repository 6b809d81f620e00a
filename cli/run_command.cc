#include "cli/run_command.h"

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/cli_util.h"
#include "cli/command_docs.h"
#include "cli/load_flags.h"
#include "cli/report_command.h"
#include "cli/version.h"
#include "core/run/engine.h"
#include "core/run/preflight.h"
#include "core/run/thresholds.h"
#include "exporters/live_status.h"
#include "exporters/run_report.h"
#include "exporters/timeline.h"

namespace uringload::cli {
namespace {

struct Supervision {
  int stopped_by = 0;        // The signal that stopped the run early, or 0.
  bool late_signal = false;  // A signal came as the run finished: it only ends the linger.
};

constexpr absl::Duration kLiveEvery = absl::Milliseconds(250);
constexpr size_t kLiveWindow = 4;  // Updates: the live rate and p99 cover the last second.

// What the supervisor records while the run goes: the timeline's rows and the live line.
class RunRecorder {
 public:
  RunRecorder(const core::Engine& engine, const core::RunPlan& plan, OutputFile* timeline,
              absl::Duration interval, bool live)
      : engine_(engine), plan_(plan), timeline_(timeline), interval_(interval), live_(live) {
    csv_ = timeline_->enabled() && absl::EndsWith(timeline_->path(), ".csv");
    if (csv_) ok_ = timeline_->Append(exporters::TimelineCsvHeader(plan_.target_names));
  }

  // Records what is due by now; returns how long until the next thing to record.
  absl::Duration Tick() {
    absl::Duration elapsed = engine_.Elapsed();
    absl::Duration next = absl::Milliseconds(100);
    absl::Duration second = absl::Seconds(ok_series_.next_end_seconds());
    if (elapsed >= second && !engine_.Done()) {
      uint64_t ok = engine_.Snapshot().outcome(core::Outcome::kOk);
      for (; elapsed >= second; second += absl::Seconds(1)) ok_series_.Add(ok);
    }
    next = std::min(next, second - elapsed);
    if (timeline_->enabled()) {
      absl::Duration boundary = (rows_ + 1) * interval_;
      if (elapsed >= boundary) {
        WriteRow(engine_.Snapshot(), boundary, interval_);
        boundary += interval_;
      }
      next = std::min(next, boundary - elapsed);
    }
    if (live_) {
      absl::Time now = absl::Now();
      if (now >= next_live_) {
        DrawLive(elapsed);
        next_live_ = now + kLiveEvery;
      }
      next = std::min(next, next_live_ - now);
    }
    return std::max(next, absl::Milliseconds(1));
  }

  // The last row, from the final stats, so the rows add up to the result exactly.
  bool Finish(core::RunResult& result) {
    ok_series_.Finish(result.duration, result.stats.outcome(core::Outcome::kOk));
    ok_series_.MoveInto(&result);
    if (live_) std::fprintf(stderr, "\r\x1b[K");
    if (!timeline_->enabled()) return true;
    absl::Duration last = rows_ * interval_;
    if (result.duration > last || result.stats.completed() != last_.completed() ||
        result.stats.started != last_.started) {
      WriteRow(result.stats, std::max(result.duration, last), result.duration - last);
    }
    return ok_;
  }

 private:
  core::OkSeries ok_series_;

  void WriteRow(const core::RunStats& stats, absl::Duration t, absl::Duration length) {
    double seconds = std::round(absl::ToDoubleSeconds(t) * 1e6) / 1e6;
    double span = std::max(std::round(absl::ToDoubleSeconds(length) * 1e6) / 1e6, 0.0);
    exporters::TimelineRow row = exporters::MakeTimelineRow(last_, stats, seconds, span);
    ok_ = ok_ && timeline_->Append(exporters::FormatTimelineRow(row, csv_, plan_.target_names));
    last_ = stats;
    ++rows_;
  }

  void DrawLive(absl::Duration elapsed) {
    // Stamped at the middle of the snapshot, which takes a while (slowly under ASan): its
    // counts are read between the two clock reads, and a stamp before them made rates high.
    absl::Time before = absl::Now();
    core::RunStats stats = engine_.Snapshot();
    window_.push_back({before + (absl::Now() - before) / 2, std::move(stats)});
    if (window_.size() > kLiveWindow + 1) window_.pop_front();
    exporters::LiveStatus status{
        .now = &window_.back().stats,
        .window_start = &window_.front().stats,
        .window_seconds = absl::ToDoubleSeconds(window_.back().at - window_.front().at),
        .elapsed = elapsed,
        .planned = plan_.requests,
        .planned_duration = plan_.duration};
    std::fprintf(stderr, "\r%s\x1b[K", exporters::FormatLiveStatus(status).c_str());
  }

  struct Sample {
    absl::Time at;
    core::RunStats stats;
  };
  const core::Engine& engine_;
  const core::RunPlan& plan_;
  OutputFile* timeline_;
  absl::Duration interval_;
  bool live_;
  bool csv_ = false;
  bool ok_ = true;
  int64_t rows_ = 0;
  core::RunStats last_;  // At the end of the last row.
  std::deque<Sample> window_;
  absl::Time next_live_ = absl::InfinitePast();
};

// Waits for the engine, recording as it goes, and turns the first SIGINT/SIGTERM into a
// graceful stop.
Supervision SuperviseRun(core::Engine& engine, const sigset_t& signals, RunRecorder& recorder) {
  int stopped_by = 0;
  while (!engine.Done()) {
    absl::Duration wait = recorder.Tick();
    int sig = WaitForStopSignal(signals, static_cast<int>(absl::ToInt64Milliseconds(wait)) + 1);
    if (sig != 0 && engine.Done()) {  // Too late to interrupt anything: it finished.
      return {.stopped_by = stopped_by, .late_signal = true};
    }
    if (sig != 0) {
      if (stopped_by != 0 && sig == SIGINT) _exit(128 + SIGINT);  // Second ^C: leave now.
      stopped_by = sig;
      engine.RequestStop();
    }
  }
  return {.stopped_by = stopped_by};
}

// What the summary, the JSON and the metrics call the target: the URL or the targets file,
// and the Unix socket the connections go to instead of the URL's host, if any.
std::string TargetText(const core::RunOptions& run) {
  std::string target = run.flow_file      ? absl::StrCat("flow ", *run.flow_file)
                       : run.targets_file ? *run.targets_file
                                          : run.url;
  if (run.unix_socket) absl::StrAppend(&target, " via unix:", *run.unix_socket);
  return target;
}

absl::StatusOr<std::unique_ptr<MetricsSession>> StartRunMetrics(const RunCommandOptions& options,
                                                                const core::RunPlan& plan,
                                                                const std::string& run_id,
                                                                const core::Engine& engine) {
  exporters::RunInfo info{.version = URINGLOAD_VERSION,
                          .target = TargetText(options.run),
                          .threads = plan.threads,
                          .concurrency = plan.concurrency,
                          .planned = plan.requests,
                          .planned_duration_seconds = std::nullopt,
                          .open_model = plan.rate.has_value(),
                          .schedule_lag_bound = plan.schedule_lag_bound,
                          .busy_poll = plan.busy_poll,
                          .flow = plan.flow != nullptr,
                          .grpc = plan.grpc,
                          .streams = plan.streams,
                          .llm = plan.llm.has_value()};
  if (plan.duration.has_value())
    info.planned_duration_seconds = absl::ToDoubleSeconds(*plan.duration);
  return MetricsSession::Start(options.metrics, "client",
                               [&engine, &info, &plan](exporters::LabelPairs labels) {
                                 return std::make_shared<exporters::RunCollector>(
                                     [&engine] { return engine.Snapshot(); },
                                     [&engine] { return engine.Elapsed(); }, info,
                                     std::move(labels), plan.target_names);
                               },
                               {{"run_id", run_id}, {"shard", std::to_string(plan.shard.index)}});
}

// Prints the summary and writes the JSON and the HTML report; false if one could not be
// written.
bool ReportResult(const RunCommandOptions& options, const core::RunPlan& plan,
                  const std::string& run_id, const core::RunResult& result,
                  const std::vector<core::ThresholdResult>& checks, OutputFile& json,
                  OutputFile& html) {
  exporters::RunReport report{.target = TargetText(options.run),
                              .run_id = run_id,
                              .shard = plan.shard,
                              .machine = exporters::ThisMachine(URINGLOAD_VERSION),
                              .planned = plan.requests,
                              .concurrency = plan.concurrency,
                              .requested_concurrency = plan.requested_concurrency,
                              .threads = plan.threads,
                              .result = &result,
                              .plan = &plan,
                              .batch_window_max = plan.batch_window_max,
                              .thresholds = checks};
  if (!options.quiet && !json.is_stdout()) {
    std::cout << exporters::FormatRunSummary(report) << std::flush;
  }
  std::string json_text = exporters::RunResultToJson(report);
  bool written = !json.enabled() || json.Write(json_text);
  if (html.enabled()) {
    // The timeline is complete (RunRecorder::Finish came first); on stdout it cannot be read.
    std::string timeline = options.timeline_path == "-" ? "" : options.timeline_path;
    written = WriteRunReport(json_text, timeline, html) && written;
  }
  return written;
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
  CLI::App* run = app.add_subcommand("run", "Send HTTP/1.1 or HTTP/2 requests to a URL and report");
  core::RunOptions& o = options.run;
  AddLoadFlags(run, o, /*schedule=*/true);
  run->add_option("--flow", o.flow_file,
                  "Run the user flows of this YAML file instead of a URL: each connection is a "
                  "virtual user stepping through an iteration; -n and -R count iterations")
      ->type_name(kFileValue);
  run->add_option("--replay", o.replay_file,
                  "Send each request of an access log (combined log format, or NDJSON with "
                  "timestamp, method and path) at its recorded offset, to the URL's host "
                  "(open model: lateness counted as with -R)")
      ->type_name(kFileValue);
  run->add_option("--replay-speed", o.replay_speed,
                  "--replay: how much faster than recorded, e.g. 2x or 0.5x")
      ->capture_default_str();
  run->add_option("--max-var-bytes", o.max_var_bytes,
                  absl::StrCat("--flow: the most bytes a variable holds; a longer extracted value "
                               "ends its step check_failed (at most ",
                               core::kMaxMaxVarBytes, ")"))
      ->capture_default_str();
  run->add_option(
         "--max-cookie-bytes", o.max_cookie_bytes,
         absl::StrCat("--flow: the bytes a virtual user's cookie jar holds (names, values, "
                      "domains, paths); a Set-Cookie that does not fit ends its step "
                      "check_failed (at most ",
                      core::kMaxMaxCookieBytes, ")"))
      ->capture_default_str();
  run->add_option(
         "--max-origins-per-user", o.max_origins_per_user,
         absl::StrCat("--flow over several origins: the connections a virtual user holds at "
                      "once, one per origin; past it the one used least recently is closed and "
                      "opened to the next origin (at most ",
                      core::kMaxMaxOriginsPerUser, ")"))
      ->capture_default_str();
  run->add_flag("--allow-saturated", options.allow_saturated,
                "--fail-if passes even when the client limited the run (see Generator:)");
  run->add_option("--fail-if", options.fail_if,
                  "Exit 3 if this holds at the end (repeatable): p99>250ms, error_rate>1%, "
                  "rps<5000, ok<99000, timeout>0; measures: p50 p75 p90 p95 p99 p999 min mean "
                  "max error_rate success_rate rps errors late_starts and each outcome");
  run->add_option("--timeline", options.timeline_path,
                  "Write one record per --interval: NDJSON, or CSV if PATH ends in .csv")
      ->type_name(kFileValue);
  run->add_option("--interval", options.interval, "Timeline interval")->capture_default_str();
  run->add_option("--json", options.json_path, "Write the result as JSON (- for stdout)")
      ->type_name(kFileValue);
  run->add_option("--report", options.report_path,
                  "Write an HTML report (tables, charts; over time with --timeline) at the end")
      ->type_name(kFileValue);
  run->add_flag("-q,--quiet", options.quiet, "No summary, no progress");
  run->add_flag("--preflight", options.preflight_only,
                "Only check this machine's limits for the plan (exit 1 on a problem)");
  AddShardFlags(run, options.shard);
  AddMetricsFlags(run, options.metrics, /*with_linger=*/true);
  RequireWholeNumbers(run, {"-n", "-c", "-t", "--max-connecting", "-p", "--seed", "--shards",
                            "--http2-window", "--http2-header-table", "--max-var-bytes",
                            "--max-cookie-bytes", "--max-origins-per-user"});
  SetRepeatPolicy(run, {"--header", "--metrics-label", "--fail-if", "--goodput"});
  return run;
}

int RunCommand(const RunCommandOptions& options) {
  core::RunOptions run = options.run;
  absl::StatusOr<std::string> run_id = ResolveShardFlags(options.shard, run);
  if (!run_id.ok()) return Fail(run_id.status());
  absl::StatusOr<core::RunPlan> plan = core::MakeRunPlan(run);
  if (!plan.ok()) return Fail(plan.status());
  absl::StatusOr<std::vector<core::Threshold>> thresholds = core::ParseThresholds(options.fail_if);
  if (!thresholds.ok()) return Fail(thresholds.status());
  if (absl::Status s = core::CheckThresholdTargets(*thresholds, plan->target_names); !s.ok()) {
    return Fail(s);
  }
  absl::StatusOr<absl::Duration> interval = core::ParseDurationFlag(
      "--interval", options.interval, absl::Milliseconds(10), absl::Hours(1));
  if (!interval.ok()) return Fail(interval.status());
  if (options.json_path == "-" && options.timeline_path == "-") {
    PrintError("--json and --timeline cannot both write to stdout");
    return kUsageError;
  }
  absl::StatusOr<OutputFile> json = OutputFile::Open("--json", options.json_path);
  if (!json.ok()) return Fail(json.status());
  absl::StatusOr<OutputFile> timeline = OutputFile::Open("--timeline", options.timeline_path);
  if (!timeline.ok()) return Fail(timeline.status());
  absl::StatusOr<OutputFile> html = OutputFile::Open("--report", options.report_path);
  if (!html.ok() || html->is_stdout()) {
    PrintError(html.ok() ? "--report needs a file, not stdout"
                         : std::string(html.status().message()));
    return kUsageError;
  }
  bool preflight_ok = RunPreflight(*plan, options.preflight_only);
  if (options.preflight_only) return preflight_ok ? 0 : kRuntimeError;
  sigset_t signals = BlockStopSignals();  // Before the workers start: they inherit it.
  core::Engine engine(*plan);
  absl::StatusOr<std::unique_ptr<MetricsSession>> metrics =
      StartRunMetrics(options, *plan, *run_id, engine);
  if (!metrics.ok()) {
    return Fail(metrics.status(),
                absl::IsInvalidArgument(metrics.status()) ? kUsageError : kRuntimeError);
  }
  if (absl::Status s = engine.Start(); !s.ok()) return Fail(s, kRuntimeError);
  bool live = !options.quiet && isatty(STDERR_FILENO);
  RunRecorder recorder(engine, *plan, &*timeline, *interval, live);
  Supervision supervision = SuperviseRun(engine, signals, recorder);
  int stopped_by = supervision.stopped_by;
  absl::StatusOr<core::RunResult> result = engine.Wait();
  if (!result.ok()) return Fail(result.status(), kRuntimeError);
  bool recorded = recorder.Finish(*result);
  std::vector<core::ThresholdResult> checks = core::EvaluateThresholds(
      *thresholds, result->stats, exporters::MeasuredDuration(*result, &*plan), plan->target_names);
  bool written = ReportResult(options, *plan, *run_id, *result, checks, *json, *html);
  core::GeneratorVerdict generator = exporters::GeneratorVerdictOf(
      {.target = "", .planned = std::nullopt, .result = &*result, .plan = &*plan});
  bool saturation_fails =
      SaturationFails(generator.reason, !checks.empty(), options.allow_saturated);
  absl::Status pushed = (*metrics)->Finish();
  if (!pushed.ok()) PrintError(std::string(pushed.message()));
  if (stopped_by == 0 && !supervision.late_signal) Linger(signals, (*metrics)->linger());
  if (!written || !recorded || !pushed.ok()) return kRuntimeError;
  if (stopped_by != 0) return 128 + stopped_by;
  if (saturation_fails) return kThresholdFailed;
  for (const core::ThresholdResult& check : checks) {
    if (check.failed) return kThresholdFailed;
  }
  return 0;
}

}  // namespace uringload::cli
