// Documentation generated from the command line itself: the man page and the bash and zsh
// completion scripts are written from the same CLI11 App that parses the flags, so a flag added
// to a command appears in `--help`, in `man uringload` and in Tab completion alike (the package
// test checks the installed man page against `--help`).
// Conventions read from an option's value name (CLI11 type_name): "FILE" completes paths;
// "a|b|c" lists the values of an enumerated flag.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"

namespace uringload::cli {

// The value name of options that take a path.
inline constexpr char kFileValue[] = "FILE";

// One option or positional argument of a command, as documented.
struct OptionDoc {
  std::vector<std::string> names;    // "-c", "--concurrency"; a positional's name alone.
  std::string value;                 // "UINT", "FILE", "1.2|1.3"; empty for a flag.
  std::vector<std::string> choices;  // The values of an enumerated option ("1.2", "1.3").
  bool file = false;                 // The value is a path.
  bool positional = false;
  std::string help;
  std::string default_value;
};

// A visible subcommand and its options, in the order --help lists them.
struct CommandDoc {
  std::string name;
  std::string help;
  std::vector<OptionDoc> options;
};

// The options of `app` itself (not of its subcommands), hidden ones left out.
std::vector<OptionDoc> DocumentedOptions(const CLI::App& app);
// The visible subcommands of `app`.
std::vector<CommandDoc> DocumentedCommands(const CLI::App& app);

// uringload(1) in roff: `prose` (cli/man_page.roff) with each line `.\" options: NAME`
// replaced by the options of subcommand NAME (of the program itself for NAME uringload), and
// `.\" version` by the .TH line with the version.
std::string ManPage(const CLI::App& app, std::string_view prose, std::string_view version);
// A bash completion script (for /usr/share/bash-completion/completions/uringload).
std::string BashCompletion(const CLI::App& app);
// A zsh completion function (for /usr/share/zsh/vendor-completions/_uringload).
std::string ZshCompletion(const CLI::App& app);

}  // namespace uringload::cli
