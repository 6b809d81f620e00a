#include "cli/docs_command.h"

#include <iostream>

#include "cli/cli_util.h"
#include "cli/command_docs.h"
#include "cli/man_page_prose.h"
#include "cli/version.h"

namespace uringload::cli {

void AddDocsCommands(CLI::App& app, DocsCommandOptions& options) {
  CLI::App* completion =
      app.add_subcommand("completion", "Print a Tab-completion script for bash or zsh");
  completion->add_option("shell", options.shell, "The shell")->type_name("bash|zsh")->required();
  // The man page is installed (man uringload); printing it is for the build, hence hidden.
  app.add_subcommand("man", "Print the uringload(1) man page (roff)")->group("");
}

int DocsCommand(const CLI::App& app, const DocsCommandOptions& options) {
  if (app.got_subcommand("man")) {
    std::cout << ManPage(app, kManPageProse, URINGLOAD_VERSION);
    return 0;
  }
  if (!app.got_subcommand("completion")) return -1;
  if (options.shell == "bash") {
    std::cout << BashCompletion(app);
  } else if (options.shell == "zsh") {
    std::cout << ZshCompletion(app);
  } else {
    std::cerr << "uringload: error: completion: the shell must be bash or zsh, got '"
              << options.shell << "'\n";
    return kUsageError;
  }
  return 0;
}

}  // namespace uringload::cli
