#include "cli/compare_command.h"

#include <iostream>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/cli_util.h"
#include "cli/command_docs.h"
#include "core/compare/comparison.h"
#include "core/file_contents.h"
#include "core/plan_limits.h"
#include "exporters/compare_report.h"
#include "exporters/run_json_reader.h"

namespace uringload::cli {
namespace {

// What a result file gives the comparison; `file` must outlive it.
core::CompareSide SideOf(const exporters::RunResultFile& file) {
  double seconds = absl::ToDoubleSeconds(file.ended_at - file.started_at);
  return {.stats = &file.stats,
          .ok_per_interval = file.ok_per_interval,
          .interval_seconds = file.interval_seconds,
          .warmup_seconds = file.warmup_seconds,
          .measured_seconds = std::max(seconds - file.warmup_seconds, 0.0)};
}

}  // namespace

CLI::App* AddCompareCommand(CLI::App& app, CompareCommandOptions& options) {
  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two runs' JSON results, with the significance of each difference");
  compare
      ->add_option("--confidence", options.confidence,
                   "How sure a difference must be to count (0.95 or 95%)")
      ->capture_default_str();
  compare->add_option("--fail-if", options.fail_if,
                      "Exit 3 for a significant shift beyond this (repeatable): p99>+10%, "
                      "rps<-5%; measures: rps mean p50 p90 p99 p999 error_rate");
  compare->add_option(
      "--run-spread", options.run_spread,
      "How much runs of one setting differ on your machine, for one run a side (repeatable): "
      "p99=8%, all=2%; measures: rps mean p50 p90 p99 p999; all=0% tests within the runs only");
  compare->add_option("--json", options.json_path, "Write the comparison as JSON (- for stdout)")
      ->type_name(kFileValue);
  compare
      ->add_option("--markdown", options.markdown_path,
                   "Write the comparison as Markdown, for a pull-request comment (- for "
                   "stdout)")
      ->type_name(kFileValue);
  compare->add_flag("-q,--quiet", options.quiet, "No table");
  compare
      ->add_option("--base", options.base,
                   "A run of the base setting (repeatable, at least 2 with --new): each "
                   "measure is then tested over the runs, so their spread counts")
      ->type_name(kFileValue);
  compare->add_option("--new", options.next, "A run of the new setting (repeatable, with --base)")
      ->type_name(kFileValue);
  SetRepeatPolicy(compare, {"--fail-if", "--run-spread", "--base", "--new"});
  compare
      ->add_option("files", options.files,
                   "BASE.json NEW.json: `run --json` or `merge` results (or --base/--new)")
      ->type_name(kFileValue)
      ->expected(0, 2);
  return compare;
}

int CompareCommand(const CompareCommandOptions& options) {
  absl::StatusOr<double> confidence = core::ParseShare("--confidence", options.confidence);
  if (!confidence.ok()) return Fail(confidence.status());
  std::vector<core::Margin> margins;
  for (const std::string& text : options.fail_if) {
    absl::StatusOr<core::Margin> margin = core::ParseMargin(text);
    if (!margin.ok()) return Fail(margin.status());
    margins.push_back(*margin);
  }
  absl::StatusOr<core::RunSpread> spread = core::ParseRunSpread(options.run_spread);
  if (!spread.ok()) return Fail(spread.status());
  absl::StatusOr<OutputFile> json = OutputFile::Open("--json", options.json_path);
  if (!json.ok()) return Fail(json.status());
  absl::StatusOr<OutputFile> markdown = OutputFile::Open("--markdown", options.markdown_path);
  if (!markdown.ok()) return Fail(markdown.status());
  if (json->is_stdout() && markdown->is_stdout()) {
    PrintError("--json and --markdown cannot both write to stdout");
    return kUsageError;
  }
  bool several = !options.base.empty() || !options.next.empty();
  if (several ? !options.files.empty() || options.base.size() < 2 || options.next.size() < 2
              : options.files.size() != 2) {
    PrintError(
        "compare takes BASE.json NEW.json, or at least two --base and two --new runs (not "
        "both forms)");
    return kUsageError;
  }
  if (several && !options.run_spread.empty()) {
    PrintError(
        "--run-spread is for one run a side: several runs a side (--base/--new) measure the "
        "spread between runs");
    return kUsageError;
  }
  std::vector<std::string> paths = several ? options.base : options.files;
  if (several) paths.insert(paths.end(), options.next.begin(), options.next.end());
  std::vector<exporters::RunResultFile> runs;
  for (const std::string& path : paths) {
    absl::StatusOr<std::string> text = core::ReadRegularFile("compare", path);
    if (!text.ok()) return Fail(text.status());
    absl::StatusOr<exporters::RunResultFile> run = exporters::ReadRunResult(*text, path);
    if (!run.ok()) return Fail(run.status());
    runs.push_back(*std::move(run));
  }
  size_t base_runs = several ? options.base.size() : 1;
  std::vector<core::CompareSide> sides;
  for (const exporters::RunResultFile& run : runs) sides.push_back(SideOf(run));
  std::span<const core::CompareSide> all(sides);
  exporters::CompareRecord record{
      .base_name = absl::StrJoin(std::span(paths).first(base_runs), ", "),
      .next_name = absl::StrJoin(std::span(paths).subspan(base_runs), ", "),
      .base_runs = base_runs,
      .next_runs = paths.size() - base_runs,
      .confidence = *confidence,
      .comparison =
          several ? core::CompareRuns(all.first(base_runs), all.subspan(base_runs), *confidence)
                  : core::Compare(sides[0], sides[1], *confidence, *spread)};
  bool failed = false;
  for (const core::Margin& margin : margins) {
    bool fails = core::MarginFails(margin, record.comparison);
    record.margins.emplace_back(margin.expr, fails);
    failed = failed || fails;
  }
  if (!options.quiet && !json->is_stdout() && !markdown->is_stdout()) {
    std::cout << exporters::CompareTable(record) << std::flush;
  }
  bool written = !json->enabled() || json->Write(exporters::CompareJson(record));
  written =
      (!markdown->enabled() || markdown->Write(exporters::CompareMarkdown(record))) && written;
  if (!written) return kRuntimeError;
  return failed ? kThresholdFailed : 0;
}

}  // namespace uringload::cli
