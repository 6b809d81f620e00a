// `uringload completion bash|zsh` prints a Tab-completion script; the hidden `uringload man`
// prints the uringload(1) man page in roff. Both are written from the parser itself
// (cli/command_docs.h), so they list exactly the flags `--help` lists.
#pragma once

#include <string>

#include "CLI/CLI.hpp"

namespace uringload::cli {

struct DocsCommandOptions {
  std::string shell;  // completion: bash or zsh.
};

// Registers `completion` and the hidden `man` on `app`.
void AddDocsCommands(CLI::App& app, DocsCommandOptions& options);

// If one of those was parsed: prints it and returns the exit status; otherwise -1.
int DocsCommand(const CLI::App& app, const DocsCommandOptions& options);

}  // namespace uringload::cli
