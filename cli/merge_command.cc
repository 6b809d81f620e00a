#include "cli/merge_command.h"

#include <iostream>

#include "cli/cli_util.h"
#include "cli/command_docs.h"
#include "core/file_contents.h"
#include "core/run/thresholds.h"
#include "exporters/run_merge.h"
#include "exporters/run_report.h"

namespace uringload::cli {

CLI::App* AddMergeCommand(CLI::App& app, MergeCommandOptions& options) {
  CLI::App* merge =
      app.add_subcommand("merge", "Add up the JSON results of the shards of one run exactly");
  merge->add_option("--json", options.json_path, "Write the merged result as JSON (- for stdout)")
      ->type_name(kFileValue);
  merge->add_option("--fail-if", options.fail_if,
                    "Threshold on the merged result, e.g. 'p99>250ms' (repeatable; exit 3)");
  merge->add_flag("--allow-saturated", options.allow_saturated,
                  "--fail-if passes even when a shard's client limited the run");
  merge->add_flag("-q,--quiet", options.quiet, "No summary");
  SetRepeatPolicy(merge, {"--fail-if"});
  // After SetRepeatPolicy, which makes every option it sees take its last value.
  merge->add_option("files", options.files, "The shards' --json results")
      ->type_name(kFileValue)
      ->required();
  return merge;
}

int MergeCommand(const MergeCommandOptions& options) {
  absl::StatusOr<std::vector<core::Threshold>> thresholds = core::ParseThresholds(options.fail_if);
  if (!thresholds.ok()) return Fail(thresholds.status());
  absl::StatusOr<OutputFile> json = OutputFile::Open("--json", options.json_path);
  if (!json.ok()) return Fail(json.status());
  std::vector<exporters::RunResultFile> files;
  for (const std::string& path : options.files) {
    absl::StatusOr<std::string> text = core::ReadRegularFile("merge", path);
    if (!text.ok()) return Fail(text.status());
    absl::StatusOr<exporters::RunResultFile> file = exporters::ReadRunResult(*text, path);
    if (!file.ok()) return Fail(file.status());
    files.push_back(*std::move(file));
  }
  absl::StatusOr<exporters::MergedRun> merged = exporters::MergeRunResults(std::move(files));
  if (!merged.ok()) {
    return Fail(merged.status(), absl::IsNotFound(merged.status()) ? kShardsMissing : kUsageError);
  }
  exporters::RunReport report = merged->Report();
  if (absl::Status s = core::CheckThresholdTargets(*thresholds, merged->plan.target_names);
      !s.ok()) {
    return Fail(s);
  }
  report.thresholds = core::EvaluateThresholds(
      *thresholds, merged->result.stats, exporters::MeasuredDuration(merged->result, report.plan),
      merged->plan.target_names);
  if (!options.quiet && !json->is_stdout()) {
    std::cout << exporters::FormatRunSummary(report) << std::flush;
  }
  if (json->enabled() && !json->Write(exporters::RunResultToJson(report))) return kRuntimeError;
  core::GeneratorVerdict generator = exporters::GeneratorVerdictOf(report);
  if (SaturationFails(generator.reason, !report.thresholds.empty(), options.allow_saturated)) {
    return kThresholdFailed;
  }
  for (const core::ThresholdResult& check : report.thresholds) {
    if (check.failed) return kThresholdFailed;
  }
  return 0;
}

}  // namespace uringload::cli
