#include "cli/report_command.h"

#include "cli/cli_util.h"
#include "cli/command_docs.h"
#include "core/file_contents.h"
#include "exporters/html_report.h"
#include "net/base/status_macros.h"

namespace uringload::cli {
namespace {

absl::StatusOr<std::string> Render(const std::string& json, const std::string& json_name,
                                   const std::string& timeline_path) {
  URINGLOAD_ASSIGN_OR_RETURN(exporters::RunResultFile run,
                             exporters::ReadRunResult(json, json_name));
  std::vector<exporters::TimelinePoint> timeline;
  if (!timeline_path.empty()) {
    URINGLOAD_ASSIGN_OR_RETURN(std::string text,
                               core::ReadRegularFile("--timeline", timeline_path));
    URINGLOAD_ASSIGN_OR_RETURN(std::vector<exporters::TimelinePoint> points,
                               exporters::ReadTimeline(text, timeline_path));
    timeline = std::move(points);
  }
  return exporters::HtmlReport(run, timeline);
}

}  // namespace

CLI::App* AddReportCommand(CLI::App& app, ReportCommandOptions& options) {
  CLI::App* report =
      app.add_subcommand("report", "Write an HTML report (tables and charts) of a run's JSON");
  report->add_option("--timeline", options.timeline, "The run's --timeline (NDJSON or CSV)")
      ->type_name(kFileValue);
  report->add_option("-o,--output", options.output, "The HTML file to write")
      ->type_name(kFileValue)
      ->required();
  SetRepeatPolicy(report, {});
  report->add_option("result", options.result, "A run's (or a merge's) --json result")
      ->type_name(kFileValue)
      ->required();
  return report;
}

int ReportCommand(const ReportCommandOptions& options) {
  absl::StatusOr<OutputFile> output = OutputFile::Open("-o/--output", options.output);
  if (!output.ok()) return Fail(output.status());
  absl::StatusOr<std::string> json = core::ReadRegularFile("report", options.result);
  if (!json.ok()) return Fail(json.status());
  absl::StatusOr<std::string> html = Render(*json, options.result, options.timeline);
  if (!html.ok()) return Fail(html.status());
  return output->Write(*html) ? 0 : kRuntimeError;
}

bool WriteRunReport(const std::string& json, const std::string& timeline_path, OutputFile& output) {
  absl::StatusOr<std::string> html = Render(json, "the run's result", timeline_path);
  if (!html.ok()) {
    PrintError(std::string(html.status().message()));
    return false;
  }
  return output.Write(*html);
}

}  // namespace uringload::cli
