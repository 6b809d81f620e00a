#include "cli/search_command.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/cli_util.h"
#include "cli/command_docs.h"
#include "cli/load_flags.h"
#include "cli/version.h"
#include "core/plan_limits.h"
#include "core/run/engine.h"
#include "core/run/generator_check.h"
#include "core/search/rate_search.h"
#include "core/search/slo.h"
#include "exporters/run_report.h"
#include "exporters/search_report.h"
#include "net/base/status_macros.h"

namespace uringload::cli {
namespace {

absl::StatusOr<double> ParseRate(const std::string& flag, const std::string& text) {
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value) || value <= 0 ||
      value > core::kMaxRate) {
    return absl::InvalidArgumentError(absl::StrCat(flag,
                                                   " must be requests per second above 0 "
                                                   "and at most ",
                                                   core::kMaxRate, ", got '", text, "'"));
  }
  return value;
}

// Everything a search needs, checked before any traffic.
struct SearchSettings {
  core::RunOptions run;  // The run flags, --shard resolved; --start-at for the first step only.
  std::string run_id;
  std::vector<core::Slo> slos;
  core::RateSearch::Settings rates;
  absl::Duration step;
  absl::Duration max_step;
  std::vector<uint64_t> requests_needed;  // Per objective (RequestsToShow).
  absl::Duration warmup;
  absl::Duration cooldown;
  double confidence = 0.95;
};

absl::StatusOr<SearchSettings> ParseSettings(const SearchCommandOptions& o) {
  SearchSettings s;
  if (o.slos.empty()) return absl::InvalidArgumentError("search needs at least one --slo");
  s.run = o.run;
  URINGLOAD_ASSIGN_OR_RETURN(std::string run_id, ResolveShardFlags(o.shard, s.run));
  s.run_id = run_id;
  URINGLOAD_ASSIGN_OR_RETURN(std::vector<core::Slo> slos, core::ParseSlos(o.slos));
  s.slos = slos;
  URINGLOAD_ASSIGN_OR_RETURN(double start, ParseRate("--start-rate", o.start_rate));
  URINGLOAD_ASSIGN_OR_RETURN(double max, ParseRate("--max-rate", o.max_rate));
  if (max < start) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-rate ", o.max_rate, " is below --start-rate ", o.start_rate));
  }
  URINGLOAD_ASSIGN_OR_RETURN(double precision, core::ParseShare("--precision", o.precision));
  URINGLOAD_ASSIGN_OR_RETURN(double confidence, core::ParseShare("--confidence", o.confidence));
  URINGLOAD_RETURN_IF_ERROR(core::CheckRange("--max-steps", o.max_steps, 2, 1000));
  s.rates = {.start_rate = start,
             .growth = 2,
             .precision = precision,
             .max_rate = max,
             .max_steps = static_cast<uint32_t>(o.max_steps)};
  s.confidence = confidence;
  URINGLOAD_ASSIGN_OR_RETURN(absl::Duration step,
                             core::ParseDurationFlag("--step-duration", o.step_duration,
                                                     absl::ZeroDuration(), absl::Hours(24), true));
  URINGLOAD_ASSIGN_OR_RETURN(
      absl::Duration warmup,
      core::ParseDurationFlag("--warmup", o.warmup, absl::ZeroDuration(), absl::Hours(24)));
  URINGLOAD_ASSIGN_OR_RETURN(
      absl::Duration cooldown,
      core::ParseDurationFlag("--cooldown", o.cooldown, absl::ZeroDuration(), absl::Hours(24)));
  URINGLOAD_ASSIGN_OR_RETURN(absl::Duration max_step,
                             core::ParseDurationFlag("--max-step-duration", o.max_step_duration,
                                                     absl::ZeroDuration(), absl::Hours(24), true));
  if (max_step < step) {
    return absl::InvalidArgumentError(absl::StrCat("--max-step-duration ", o.max_step_duration,
                                                   " is below --step-duration ", o.step_duration));
  }
  s.step = step;
  s.max_step = max_step;
  for (const core::Slo& slo : s.slos) {
    s.requests_needed.push_back(core::RequestsToShow(slo.allowed_share, s.confidence));
  }
  s.warmup = warmup;
  s.cooldown = cooldown;
  return s;
}

// The plan of a step at `rate`: the flags given, the rate, the warmup and the step's length.
// Sharded, `rate` is the fleet's and this process's plan holds its share of it.
core::RunOptions StepOptions(const SearchSettings& s, double rate, absl::Duration length) {
  core::RunOptions run = s.run;
  run.rate = absl::StrFormat("%.17g", rate);
  run.duration = absl::FormatDuration(s.warmup + length);
  if (s.warmup > absl::ZeroDuration()) run.warmup = absl::FormatDuration(s.warmup);
  return run;
}

// How long a step at `rate` measures: --step-duration, or longer (up to --max-step-duration)
// when that would hold fewer requests than an objective needs to be shown met; a quarter
// more, since some may fail or come late. This process judges its own share of a sharded rate.
absl::Duration StepLength(const SearchSettings& s, double rate, uint32_t shards) {
  uint64_t needed = *std::max_element(s.requests_needed.begin(), s.requests_needed.end());
  double seconds = std::ceil(10 * 1.25 * needed * shards / rate) / 10;
  return std::clamp(absl::Seconds(seconds), s.step, s.max_step);
}

// Whether the client's only fault was the schedule lag of workers that woke late (this
// machine's wake-up latency, while barely busy): the step is then judged on the latency from
// each send, the server's own figure, instead of being thrown away.
bool OnlyLateWakeUps(const core::GeneratorVerdict& v) {
  if (!v.saturated || !v.late_wake_ups) return false;
  for (size_t c = 0; c < core::kSaturationCauseCount; ++c) {
    if (v.causes[c] && c != static_cast<size_t>(core::SaturationCause::kScheduleLag)) return false;
  }
  return true;
}

// Why a step fails, in a phrase per cause ("" when it passes).
std::string WhyFailed(const core::GeneratorVerdict& generator,
                      const std::vector<core::SloCheck>& checks) {
  std::vector<std::string> why;
  if (generator.saturated) {
    why.push_back(absl::StrCat("invalid, the client was saturated (", generator.reason, ")"));
  } else if (generator.sent_share < core::kMinSentShare) {
    why.push_back(absl::StrFormat("sent %.1f%% of the planned requests on schedule",
                                  100 * generator.sent_share));
  }
  for (const core::SloCheck& c : checks) {
    if (c.met) continue;
    if (c.requests == 0) {
      why.push_back(absl::StrCat(c.expr, ": nothing to measure"));
    } else if (c.allowed < 0) {
      why.push_back(absl::StrCat(c.expr, ": ", c.requests, " requests are too few to show it"));
    } else if (!c.failed) {
      why.push_back(absl::StrFormat(
          "%s: %d of %d beyond shows neither (met needs at most %d, failing at least %d)", c.expr,
          c.beyond, c.requests, c.allowed, c.failing));
    } else {
      why.push_back(absl::StrFormat("%s: %d of %d beyond, at most %d allowed", c.expr, c.beyond,
                                    c.requests, c.allowed));
    }
  }
  return absl::StrJoin(why, "; ");
}

// Runs one step of `length`; `stopped_by` gets a stop signal that arrived meanwhile.
absl::StatusOr<exporters::SearchStep> RunStep(const SearchCommandOptions& o,
                                              const SearchSettings& s, double rate,
                                              absl::Duration length, const sigset_t& signals,
                                              int* stopped_by) {
  URINGLOAD_ASSIGN_OR_RETURN(core::RunPlan plan, core::MakeRunPlan(StepOptions(s, rate, length)));
  core::Engine engine(plan);
  URINGLOAD_RETURN_IF_ERROR(engine.Start());
  while (!engine.Done()) {
    int signal = WaitForStopSignal(signals, 100);
    if (signal != 0) {
      *stopped_by = signal;
      engine.RequestStop();
    }
  }
  URINGLOAD_ASSIGN_OR_RETURN(core::RunResult result, engine.Wait());
  exporters::RunReport report{.target = o.run.targets_file ? *o.run.targets_file : o.run.url,
                              .run_id = s.run_id,
                              .shard = plan.shard,
                              .machine = exporters::ThisMachine(URINGLOAD_VERSION),
                              .planned = std::nullopt,
                              .concurrency = plan.concurrency,
                              .requested_concurrency = plan.requested_concurrency,
                              .threads = plan.threads,
                              .result = &result,
                              .plan = &plan,
                              .batch_window_max = plan.batch_window_max};
  exporters::SearchStep step{
      .rate = rate,
      .stats = result.stats,
      .measured_seconds = absl::ToDoubleSeconds(exporters::MeasuredDuration(result, &plan)),
      .result_json = exporters::RunResultToJson(report)};
  step.planned_seconds = absl::ToDoubleSeconds(length);
  core::GeneratorVerdict generator = exporters::GeneratorVerdictOf(report);
  bool from_send = OnlyLateWakeUps(generator);
  if (from_send) {
    step.note = absl::StrCat("judged on latency from the send: ", generator.reason);
    generator = {};
  }
  for (const core::Slo& slo : s.slos) {
    step.checks.push_back(core::CheckSlo(slo, result.stats, s.confidence, from_send));
  }
  step.why = WhyFailed(generator, step.checks);
  step.passed = step.why.empty();
  // Undecided: a valid step in which no objective was shown to fail, and one was not shown met.
  step.undecided =
      !step.passed && !generator.saturated && generator.sent_share >= core::kMinSentShare &&
      std::none_of(step.checks.begin(), step.checks.end(),
                   [](const core::SloCheck& c) { return c.failed || c.requests == 0; });
  return step;
}

void Sleep(absl::Duration d, const sigset_t& signals, int* stopped_by) {
  absl::Time until = absl::Now() + d;
  while (*stopped_by == 0 && absl::Now() < until) {
    int ms = static_cast<int>(
        std::min<int64_t>(100, absl::ToInt64Milliseconds(until - absl::Now()) + 1));
    *stopped_by = WaitForStopSignal(signals, ms);
  }
}

}  // namespace

CLI::App* AddSearchCommand(CLI::App& app, SearchCommandOptions& options) {
  CLI::App* search = app.add_subcommand(
      "search", "Find the highest request rate that meets every --slo (open-model steps)");
  AddLoadFlags(search, options.run, /*schedule=*/false);
  AddShardFlags(search, options.shard);
  search->add_option("--slo", options.slos,
                     "An objective each step must meet, with --confidence (repeatable): "
                     "p50..p999<DURATION (of the latency, or NAME.p99 of a histogram such as "
                     "ttft.p99), or error_rate<SHARE, e.g. 'p99<50ms', 'ttft.p99<500ms', "
                     "'error_rate<0.1%'");
  search->add_option("--start-rate", options.start_rate, "The first step's rate, requests/s")
      ->capture_default_str();
  search->add_option("--max-rate", options.max_rate, "The rate never goes above this")
      ->capture_default_str();
  search
      ->add_option("--step-duration", options.step_duration,
                   "Measured time of each step (at least; longer when the rate is too low to "
                   "bring the requests an objective needs)")
      ->capture_default_str();
  search
      ->add_option("--max-step-duration", options.max_step_duration,
                   "A step too short to show an objective met or failed is lengthened up to this")
      ->capture_default_str();
  search->add_option("--warmup", options.warmup, "Unmeasured time before each step's")
      ->capture_default_str();
  search->add_option("--cooldown", options.cooldown, "Pause between steps")->capture_default_str();
  search
      ->add_option("--precision", options.precision,
                   "Stop bisecting when the bracket is this narrow (relative)")
      ->capture_default_str();
  search
      ->add_option("--confidence", options.confidence,
                   "How sure a step must be that each objective holds")
      ->capture_default_str();
  search->add_option("--max-steps", options.max_steps, "At most this many steps")
      ->capture_default_str();
  search
      ->add_option("--json", options.json_path,
                   "Write every step's result and the rate found as JSON (- for stdout)")
      ->type_name(kFileValue);
  search
      ->add_option("--report", options.report_path,
                   "Write an HTML page with the latency-vs-rate chart")
      ->type_name(kFileValue);
  search->add_flag("-q,--quiet", options.quiet, "No table");
  RequireWholeNumbers(search, {"-c", "-t", "--max-connecting", "-p", "--seed", "--http2-window",
                               "--http2-header-table", "--max-steps", "--shards"});
  SetRepeatPolicy(search, {"--header", "--slo", "--goodput"});
  return search;
}

int SearchCommand(const SearchCommandOptions& options) {
  absl::StatusOr<SearchSettings> settings = ParseSettings(options);
  if (!settings.ok()) return Fail(settings.status());
  // The whole plan is checked now, at the start rate: a bad flag exits 2 before any traffic.
  absl::StatusOr<core::RunPlan> first =
      core::MakeRunPlan(StepOptions(*settings, settings->rates.start_rate, settings->step));
  if (!first.ok()) return Fail(first.status());
  absl::StatusOr<OutputFile> json = OutputFile::Open("--json", options.json_path);
  if (!json.ok()) return Fail(json.status());
  absl::StatusOr<OutputFile> html = OutputFile::Open("--report", options.report_path);
  if (!html.ok() || html->is_stdout()) {
    PrintError(html.ok() ? "--report needs a file, not stdout"
                         : std::string(html.status().message()));
    return kUsageError;
  }
  bool table = !options.quiet && !json->is_stdout();
  sigset_t signals = BlockStopSignals();  // Before the workers start: they inherit it.
  exporters::SearchRecord record{
      .target = options.run.targets_file ? *options.run.targets_file : options.run.url,
      .shard = first->shard,
      .slos = options.slos,
      .confidence = settings->confidence,
      .precision = settings->rates.precision,
      .requests_needed = settings->requests_needed};
  if (table) {
    std::cout << "Searching for the highest rate meeting " << absl::StrJoin(options.slos, ", ")
              << absl::StrFormat(" (%.0f%% confidence)\n", 100 * settings->confidence);
    if (first->shard.count > 1) {
      std::cout << absl::StrFormat(
          "Shard %u of %u: each rate is the fleet's; this process sends 1/%u of it and judges "
          "its own requests (achieved/s is its own)\n",
          first->shard.index, first->shard.count, first->shard.count);
    }
    std::vector<std::string> needs;
    for (size_t k = 0; k < options.slos.size(); ++k) {
      needs.push_back(absl::StrCat(options.slos[k], " ", settings->requests_needed[k]));
    }
    std::cout << "Requests a step needs to show an objective met (none beyond it): "
              << absl::StrJoin(needs, ", ") << (first->shard.count > 1 ? " in each shard" : "")
              << "; a step lasts " << options.step_duration
              << ", longer at rates that bring fewer, up to " << options.max_step_duration << "\n";
    std::cout << exporters::SearchTableHeader() << std::flush;
  }
  core::RateSearch search(settings->rates);
  int stopped_by = 0;
  while (std::optional<double> rate = search.Next()) {
    if (!record.steps.empty()) Sleep(settings->cooldown, signals, &stopped_by);
    if (stopped_by != 0) break;
    bool confirmation = search.confirming();
    absl::Duration length = StepLength(*settings, *rate, first->shard.count);
    absl::StatusOr<exporters::SearchStep> step =
        RunStep(options, *settings, *rate, length, signals, &stopped_by);
    // Too few requests to decide either way: the same rate again, twice as long, up to the cap.
    while (step.ok() && step->undecided && length < settings->max_step && stopped_by == 0) {
      if (table) std::cout << exporters::SearchTableRow(*step) << std::flush;
      length = std::min(2 * length, settings->max_step);
      step = RunStep(options, *settings, *rate, length, signals, &stopped_by);
    }
    if (!step.ok()) return Fail(step.status(), kRuntimeError);
    step->confirmation = confirmation;
    // Later steps follow the first at once: shards that judge alike stay together.
    settings->run.start_at.reset();
    settings->run.preconnect = false;
    if (table) std::cout << exporters::SearchTableRow(*step) << std::flush;
    if (stopped_by != 0) break;  // An interrupted step proves nothing.
    if (step->undecided) {
      search.RecordUndecided();
    } else {
      search.Record(step->passed);
    }
    record.steps.push_back(*std::move(step));
  }
  record.outcome = search.outcome();
  record.lower = search.lower();
  record.upper = search.upper();
  if (table) std::cout << exporters::SearchConclusion(record) << std::flush;
  bool written = !json->enabled() || json->Write(exporters::SearchJson(record));
  if (html->enabled()) written = html->Write(exporters::SearchHtml(record)) && written;
  if (!written) return kRuntimeError;
  if (stopped_by != 0) return 128 + stopped_by;
  return search.outcome() == core::RateSearch::Outcome::kFound ? 0 : kThresholdFailed;
}

}  // namespace uringload::cli
