// uringload: io_uring HTTP/1.1 load generator. Dispatches to the subcommands.
#include <cstdio>
#include <iostream>

#include "CLI/CLI.hpp"
#include "core/run_command.h"

namespace {

constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"uringload: io_uring HTTP/1.1 load generator", "uringload"};
  app.set_version_flag("--version", "uringload 0.1.0");
  app.require_subcommand(1);
  uringload::cli::RunCommandOptions run_options;
  CLI::App* run = uringload::cli::AddRunCommand(app, run_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    for (char& c : message) {
      if (c == '\n') c = ' ';
    }
    std::cerr << "uringload: error: " << message << " (see uringload --help)\n";
    return kUsageError;
  }
  if (run->parsed()) return uringload::cli::RunCommand(run_options);
  return kUsageError;
}
