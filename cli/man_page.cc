// uringload(1): the prose of cli/man_page.roff with the options of each command filled in from
// the App that parses them.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cli/command_docs.h"
#include "net/base/absl_view.h"

namespace uringload::cli {
namespace {

// Text for roff: backslashes doubled, '-' as the minus sign \- (so flags can be searched and
// copied), and a line never starting with a control character.
std::string Roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string OptionsOf(const CommandDoc& command) {
  std::string out;
  for (const OptionDoc& option : command.options) {
    std::vector<std::string> names;
    for (const std::string& name : option.names)
      names.push_back(absl::StrCat("\\fB", Roff(name), "\\fR"));
    absl::StrAppend(&out, ".TP\n", absl::StrJoin(names, ", "));
    if (!option.value.empty() && !option.positional) {
      absl::StrAppend(&out, " \\fI", Roff(option.value), "\\fR");
    }
    absl::StrAppend(&out, "\n", Roff(option.help));
    if (!option.default_value.empty()) {
      absl::StrAppend(&out, " (default: ", Roff(option.default_value), ")");
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string ManPage(const CLI::App& app, std::string_view prose, std::string_view version) {
  std::vector<CommandDoc> commands = DocumentedCommands(app);
  std::string out;
  // Debian's Abseil has its own string_view: the prose is split as one.
  for (absl::string_view line : absl::StrSplit(AbslView(prose), '\n')) {
    absl::string_view name = line;
    if (absl::ConsumePrefix(&name, ".\\\" options: ")) {
      bool found = false;
      if (name == "uringload") {
        out += OptionsOf({.name = "uringload", .help = "", .options = DocumentedOptions(app)});
        found = true;
      }
      for (const CommandDoc& command : commands) {
        if (command.name != name) continue;
        out += OptionsOf(command);
        found = true;
      }
      // A prose line naming a command that does not exist is a bug the build should show.
      if (!found) absl::StrAppend(&out, ".\\\" (no command named ", name, ")\n");
      continue;
    }
    if (line == ".\\\" version") {
      absl::StrAppend(&out, ".TH URINGLOAD 1 \"\" \"uringload ", std::string(version),
                      "\" \"User Commands\"\n");
      continue;
    }
    absl::StrAppend(&out, line, "\n");
  }
  while (absl::EndsWith(out, "\n\n")) out.pop_back();
  return out;
}

}  // namespace uringload::cli
