// `uringload report RESULT.json [--timeline FILE] -o report.html`: the HTML report of a run's
// JSON result (or of a merge of shards), with charts over time from its --timeline; and
// WriteRunReport, which `run --report PATH` calls at the end of a run.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "cli/cli_util.h"

namespace uringload::cli {

struct ReportCommandOptions {
  std::string result;
  std::string timeline;
  std::string output;
};

CLI::App* AddReportCommand(CLI::App& app, ReportCommandOptions& options);
int ReportCommand(const ReportCommandOptions& options);

// Writes the report of `json` (a run's JSON result) and `timeline_path` (may be empty) to
// `output` (opened before the run, so a bad path fails before any traffic); prints the error
// and returns false on failure.
bool WriteRunReport(const std::string& json, const std::string& timeline_path, OutputFile& output);

}  // namespace uringload::cli
