// uringload: io_uring HTTP/1.1 and HTTP/2 load generator. Dispatches to the subcommands.
#include <cstdio>
#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "cli/cli_util.h"
#include "cli/compare_command.h"
#include "cli/docs_command.h"
#include "cli/har2flow_command.h"
#include "cli/link_command.h"
#include "cli/merge_command.h"
#include "cli/report_command.h"
#include "cli/run_command.h"
#include "cli/search_command.h"
#include "cli/serve_command.h"
#include "cli/version.h"
#include "net/tls_context.h"

namespace {

// `uringload --version`: the release, the git revision built, and the libraries.
std::string VersionText() {
  return absl::StrCat("uringload ", URINGLOAD_VERSION, " (git ", URINGLOAD_GIT_REVISION,
                      ")\nbuilt with liburing ", URINGLOAD_LIBURING_VERSION, " and ",
                      uringload::net::OpenSslBuildVersion(), "\nrunning with ",
                      uringload::net::OpenSslVersion());
}

}  // namespace

int main(int argc, char** argv) {
  // First thing: SIGINT/SIGTERM stay pending until a command collects them, so a signal
  // during startup (plan, preflight, rings) still ends in a graceful stop with a result
  // instead of killing the process (seen under TSan, whose startup is slow).
  uringload::cli::BlockStopSignals();
  CLI::App app{"uringload: io_uring HTTP/1.1 and HTTP/2 load generator", "uringload"};
  app.set_version_flag("--version", VersionText, "Print the version, git revision and libraries");
  app.require_subcommand(1);
  uringload::cli::RunCommandOptions run_options;
  CLI::App* run = uringload::cli::AddRunCommand(app, run_options);
  uringload::cli::ServeCommandOptions serve_options;
  CLI::App* serve = uringload::cli::AddServeCommand(app, serve_options);
  uringload::cli::MergeCommandOptions merge_options;
  CLI::App* merge = uringload::cli::AddMergeCommand(app, merge_options);
  uringload::cli::CompareCommandOptions compare_options;
  CLI::App* compare = uringload::cli::AddCompareCommand(app, compare_options);
  uringload::cli::SearchCommandOptions search_options;
  CLI::App* search = uringload::cli::AddSearchCommand(app, search_options);
  uringload::cli::LinkCommandOptions link_options;
  CLI::App* link = uringload::cli::AddLinkCommand(app, link_options);
  uringload::cli::ReportCommandOptions report_options;
  CLI::App* report = uringload::cli::AddReportCommand(app, report_options);
  uringload::cli::Har2FlowCommandOptions har2flow_options;
  CLI::App* har2flow = uringload::cli::AddHar2FlowCommand(app, har2flow_options);
  uringload::cli::DocsCommandOptions docs_options;
  uringload::cli::AddDocsCommands(app, docs_options);
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
    return uringload::cli::kUsageError;
  }
  if (run->parsed()) return uringload::cli::RunCommand(run_options);
  if (serve->parsed()) return uringload::cli::ServeCommand(serve_options);
  if (merge->parsed()) return uringload::cli::MergeCommand(merge_options);
  if (search->parsed()) return uringload::cli::SearchCommand(search_options);
  if (compare->parsed()) return uringload::cli::CompareCommand(compare_options);
  if (report->parsed()) return uringload::cli::ReportCommand(report_options);
  if (link->parsed()) return uringload::cli::LinkCommand(link_options);
  if (har2flow->parsed()) return uringload::cli::Har2FlowCommand(har2flow_options);
  if (int status = uringload::cli::DocsCommand(app, docs_options); status >= 0) return status;
  return uringload::cli::kUsageError;
}
