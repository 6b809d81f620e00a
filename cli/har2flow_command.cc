#include "cli/har2flow_command.h"

#include <iostream>

#include "cli/cli_util.h"
#include "cli/command_docs.h"
#include "core/file_contents.h"
#include "core/flow/har_flow.h"

namespace uringload::cli {

CLI::App* AddHar2FlowCommand(CLI::App& app, Har2FlowCommandOptions& options) {
  CLI::App* command = app.add_subcommand(
      "har2flow",
      "Print the flow (YAML, for run --flow) of a browser's HAR export: values an earlier answer "
      "gave become extractions, its cookies the jar's");
  command->add_option("har", options.har_path, "The HAR file")->required()->type_name(kFileValue);
  command
      ->add_option("--origin", options.origins.keep,
                   "An origin (https://host[:port]) whose requests become steps (repeatable; "
                   "default: the first request's); the others are skipped, each named in a "
                   "comment. A user of the flow holds a connection per origin")
      ->type_name("URL");
  command->add_flag("--all-origins", options.origins.all,
                    "Every origin's requests become steps (third parties too: review them)");
  return command;
}

int Har2FlowCommand(const Har2FlowCommandOptions& options) {
  absl::StatusOr<std::string> text = core::ReadRegularFile("har2flow", options.har_path);
  if (!text.ok()) return Fail(text.status());
  std::string note;
  absl::StatusOr<std::string> flow =
      core::HarToFlow(*text, options.har_path, options.origins, &note);
  if (!flow.ok()) return Fail(flow.status());
  if (!note.empty()) std::cerr << "uringload: har2flow: " << note << "\n";
  std::cout << *flow;
  return std::cout.flush() ? 0 : kRuntimeError;
}

}  // namespace uringload::cli
