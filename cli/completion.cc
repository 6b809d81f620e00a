// Bash and zsh completion scripts written from the App: subcommands, each command's flags,
// paths after FILE options, the values of enumerated ("a|b") options and positionals.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli/command_docs.h"

namespace uringload::cli {
namespace {

std::vector<std::string> FlagNames(const std::vector<OptionDoc>& options) {
  std::vector<std::string> names;
  for (const OptionDoc& option : options) {
    if (option.positional) continue;
    names.insert(names.end(), option.names.begin(), option.names.end());
  }
  return names;
}

// The `case $prev in` arms of one command: what follows an option that takes a value.
std::string BashValueCases(const std::vector<OptionDoc>& options) {
  std::string out;
  std::vector<std::string> plain;  // A number, a duration, a URL: nothing to offer.
  for (const OptionDoc& option : options) {
    if (option.positional || option.value.empty()) continue;
    std::string names = absl::StrJoin(option.names, "|");
    if (!option.choices.empty()) {
      absl::StrAppend(&out, "        ", names, ")\n          COMPREPLY=($(compgen -W '",
                      absl::StrJoin(option.choices, " "), "' -- \"$cur\")); return ;;\n");
    } else if (option.file) {
      absl::StrAppend(&out, "        ", names,
                      ")\n          compopt -o filenames 2>/dev/null; "
                      "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n");
    } else {
      plain.push_back(names);
    }
  }
  if (!plain.empty()) absl::StrAppend(&out, "        ", absl::StrJoin(plain, "|"), ") return ;;\n");
  return out;
}

// The values a command's positional arguments can take, if enumerated.
std::vector<std::string> PositionalChoices(const std::vector<OptionDoc>& options) {
  std::vector<std::string> values;
  for (const OptionDoc& option : options) {
    if (option.positional)
      values.insert(values.end(), option.choices.begin(), option.choices.end());
  }
  return values;
}

// Text inside a single-quoted zsh _arguments spec: ' closed and reopened, [ ] : escaped.
std::string ZshQuote(const std::string& text) {
  return absl::StrReplaceAll(text, {{"'", "'\\''"}, {"[", "\\["}, {"]", "\\]"}, {":", "\\:"}});
}

std::string ZshSpec(const OptionDoc& option) {
  std::string action;
  if (!option.choices.empty()) {
    action = absl::StrCat("(", absl::StrJoin(option.choices, " "), ")");
  } else if (option.file) {
    action = "_files";
  }
  std::string value = ZshQuote(option.value);
  if (option.positional) {
    return absl::StrCat("'*:", value.empty() ? option.names[0] : value, ":", action, "'");
  }
  std::string names = option.names.size() == 1
                          ? option.names[0]
                          : absl::StrCat("{", absl::StrJoin(option.names, ","), "}");
  // '*' lets every option repeat: the repeatable ones (-H, --listen, --fail-if) must, and the
  // others take the last value (SetRepeatPolicy).
  std::string spec = absl::StrCat("'*'", names, "'[", ZshQuote(option.help), "]");
  if (!option.value.empty()) absl::StrAppend(&spec, ":", value, ":", action);
  return spec + "'";
}

}  // namespace

std::string BashCompletion(const CLI::App& app) {
  std::vector<CommandDoc> commands = DocumentedCommands(app);
  std::vector<std::string> command_names;
  for (const CommandDoc& command : commands) command_names.push_back(command.name);
  std::string out = absl::StrCat(
      "# bash completion for uringload (written by `uringload completion bash`)\n",
      "_uringload() {\n",
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command= i\n",
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n", "    case ${COMP_WORDS[i]} in\n", "      ",
      absl::StrJoin(command_names, "|"), ") command=${COMP_WORDS[i]}; break ;;\n", "    esac\n",
      "  done\n", "  case $command in\n", "    '')\n", "      COMPREPLY=($(compgen -W '",
      absl::StrJoin(command_names, " "), " ", absl::StrJoin(FlagNames(DocumentedOptions(app)), " "),
      "' -- \"$cur\")) ;;\n");
  for (const CommandDoc& command : commands) {
    absl::StrAppend(&out, "    ", command.name, ")\n", "      case $prev in\n",
                    BashValueCases(command.options), "      esac\n");
    std::vector<std::string> positional = PositionalChoices(command.options);
    if (!positional.empty()) {
      absl::StrAppend(&out, "      if [[ $cur != -* ]]; then\n",
                      "        COMPREPLY=($(compgen -W '", absl::StrJoin(positional, " "),
                      "' -- \"$cur\")); return\n", "      fi\n");
    }
    absl::StrAppend(&out, "      COMPREPLY=($(compgen -W '",
                    absl::StrJoin(FlagNames(command.options), " "), "' -- \"$cur\")) ;;\n");
  }
  out +=
      "  esac\n"
      "}\n"
      "complete -F _uringload uringload\n";
  return out;
}

std::string ZshCompletion(const CLI::App& app) {
  std::vector<CommandDoc> commands = DocumentedCommands(app);
  std::string out =
      "#compdef uringload\n"
      "# zsh completion for uringload (written by `uringload completion zsh`)\n"
      "_uringload() {\n"
      "  local -a commands\n"
      "  commands=(\n";
  for (const CommandDoc& command : commands) {
    absl::StrAppend(&out, "    '", command.name, ":", ZshQuote(command.help), "'\n");
  }
  out +=
      "  )\n"
      "  if (( CURRENT == 2 )); then\n"
      "    _describe 'command' commands\n"
      "    return\n"
      "  fi\n"
      "  local command=$words[2]\n"
      "  shift words; (( CURRENT-- ))\n"
      "  case $command in\n";
  for (const CommandDoc& command : commands) {
    absl::StrAppend(&out, "    ", command.name, ")\n      _arguments -s");
    for (const OptionDoc& option : command.options) {
      absl::StrAppend(&out, " \\\n        ", ZshSpec(option));
    }
    out += " ;;\n";
  }
  out +=
      "  esac\n"
      "}\n"
      "_uringload \"$@\"\n";
  return out;
}

}  // namespace uringload::cli
