// `uringload compare BASE.json NEW.json`, or several runs a side with `--base A1.json --base
// A2.json --new B1.json --new B2.json`: is the new build slower, and is that more than noise?
// Per measure both values, the shift and its significance at --confidence
// (core/compare/comparison.h); `--fail-if 'p99>+10%'` exits 3 for a significant shift beyond
// the margin, never for an insignificant one. A table on stdout, --markdown and --json files.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace uringload::cli {

struct CompareCommandOptions {
  std::vector<std::string> files;  // BASE, NEW.
  std::vector<std::string> base;   // --base, repeated: runs of the base setting.
  std::vector<std::string> next;   // --new, repeated.
  std::string confidence = "95%";
  std::vector<std::string> fail_if;
  std::vector<std::string> run_spread;  // MEASURE=N%, over the default spread between runs.
  std::string json_path;
  std::string markdown_path;
  bool quiet = false;
};

CLI::App* AddCompareCommand(CLI::App& app, CompareCommandOptions& options);
int CompareCommand(const CompareCommandOptions& options);

}  // namespace uringload::cli
