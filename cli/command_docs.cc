#include "cli/command_docs.h"

#include "absl/strings/str_split.h"

namespace uringload::cli {
namespace {

OptionDoc Document(const CLI::Option& option) {
  OptionDoc doc;
  doc.positional =
      option.get_positional() && option.get_snames().empty() && option.get_lnames().empty();
  if (doc.positional) {
    doc.names.push_back(option.get_name(true));
  } else {
    for (const std::string& name : option.get_snames()) doc.names.push_back("-" + name);
    for (const std::string& name : option.get_lnames()) doc.names.push_back("--" + name);
  }
  if (option.get_type_size() != 0) {
    // CLI11 appends each validator's description after a ':'; the value name comes first.
    std::string type = option.get_type_name();
    doc.value = type.substr(0, type.find(':'));
    doc.file = doc.value == kFileValue;
    if (doc.value.find('|') != std::string::npos) {
      doc.choices = absl::StrSplit(doc.value, '|');
    }
  }
  doc.help = option.get_description();
  doc.default_value = option.get_default_str();
  return doc;
}

}  // namespace

std::vector<OptionDoc> DocumentedOptions(const CLI::App& app) {
  std::vector<OptionDoc> docs;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // Hidden.
    docs.push_back(Document(*option));
  }
  return docs;
}

std::vector<CommandDoc> DocumentedCommands(const CLI::App& app) {
  std::vector<CommandDoc> commands;
  for (const CLI::App* sub :
       app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
    commands.push_back({.name = sub->get_name(),
                        .help = sub->get_description(),
                        .options = DocumentedOptions(*sub)});
  }
  return commands;
}

}  // namespace uringload::cli
