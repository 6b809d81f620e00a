#include "cli/compare_command.h"

#include <iostream>

#include "absl/strings/str_cat.h"
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
  compare->add_option("--json", options.json_path, "Write the comparison as JSON (- for stdout)")
      ->type_name(kFileValue);
  compare
      ->add_option("--markdown", options.markdown_path,
                   "Write the comparison as Markdown, for a pull-request comment (- for "
                   "stdout)")
      ->type_name(kFileValue);
  compare->add_flag("-q,--quiet", options.quiet, "No table");
  SetRepeatPolicy(compare, {"--fail-if"});
  compare->add_option("files", options.files, "BASE.json NEW.json: `run --json` or `merge` results")
      ->type_name(kFileValue)
      ->expected(2)
      ->required();
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
  absl::StatusOr<OutputFile> json = OutputFile::Open("--json", options.json_path);
  if (!json.ok()) return Fail(json.status());
  absl::StatusOr<OutputFile> markdown = OutputFile::Open("--markdown", options.markdown_path);
  if (!markdown.ok()) return Fail(markdown.status());
  if (json->is_stdout() && markdown->is_stdout()) {
    PrintError("--json and --markdown cannot both write to stdout");
    return kUsageError;
  }
  std::vector<exporters::RunResultFile> runs;
  for (const std::string& path : options.files) {
    absl::StatusOr<std::string> text = core::ReadRegularFile("compare", path);
    if (!text.ok()) return Fail(text.status());
    absl::StatusOr<exporters::RunResultFile> run = exporters::ReadRunResult(*text, path);
    if (!run.ok()) return Fail(run.status());
    runs.push_back(*std::move(run));
  }
  exporters::CompareRecord record{
      .base_name = options.files[0],
      .next_name = options.files[1],
      .confidence = *confidence,
      .comparison = core::Compare(SideOf(runs[0]), SideOf(runs[1]), *confidence)};
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
