#include "core/run/target_file.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/file_contents.h"
#include "core/target_name.h"
#include "net/base/status_macros.h"

namespace uringload::core {
namespace {

std::string Folder(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace

absl::StatusOr<std::vector<TargetLine>> ReadTargetFile(const std::string& path) {
  URINGLOAD_ASSIGN_OR_RETURN(std::string text, ReadRegularFile("--targets", path));
  return ParseTargetFile(path, text);
}

absl::StatusOr<std::vector<TargetLine>> ParseTargetFile(const std::string& path,
                                                        const std::string& text) {
  std::vector<TargetLine> lines;
  int number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++number;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty() || line[0] == '#') continue;
    auto fail = [&](const std::string& why) {
      return absl::InvalidArgumentError(absl::StrCat("--targets ", path, ":", number, ": ", why));
    };
    std::vector<std::string> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (words.size() < 2 || words.size() > 4) {
      return fail(absl::StrCat("expected 'METHOD URL [@bodyfile] [name=NAME]', got '", line, "'"));
    }
    TargetLine target{.line = number, .method = words[0], .url = words[1], .body = std::nullopt};
    for (size_t k = 2; k < words.size(); ++k) {
      const std::string& word = words[k];
      if (absl::StartsWith(word, "name=") && target.name.empty()) {
        target.name = word.substr(5);
        if (!IsTargetName(target.name)) {
          return fail(
              absl::StrCat("a name is letters, digits, '_', '-' and '.', got '", word, "'"));
        }
      } else if (word.size() >= 2 && word[0] == '@' && !target.body.has_value()) {
        std::string body_path = word.substr(1);
        if (body_path[0] != '/') body_path = absl::StrCat(Folder(path), "/", body_path);
        absl::StatusOr<std::string> body = ReadRegularFile("body", body_path);
        if (!body.ok()) return fail(std::string(body.status().message()));
        target.body = *std::move(body);
        target.body_path = word.substr(1);
      } else {
        return fail(absl::StrCat(
            "after METHOD URL, a body '@file' and a 'name=NAME' once each, got '", word, "'"));
      }
    }
    lines.push_back(std::move(target));
  }
  if (lines.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--targets ", path, ": no request in the file"));
  }
  return lines;
}

}  // namespace uringload::core
