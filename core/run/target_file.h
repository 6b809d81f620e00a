// TargetFile: the requests of a --targets file, one per line: `METHOD URL [@bodyfile]
// [name=NAME]`, blank lines and `#` comments skipped. Lines of one name are one target in the
// per-target results. A body path is relative to the file's own folder, so a
// targets file and its bodies move together.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::core {

struct TargetLine {
  int line = 0;  // 1-based line number in the file.
  std::string method;
  std::string url;
  std::optional<std::string> body;  // The body file's contents, when the line names one.
  std::string body_path = {};       // As the line names it.
  std::string name = {};            // name=NAME, or empty.
};

// Every error names path:line and what is wrong with it.
absl::StatusOr<std::vector<TargetLine>> ReadTargetFile(const std::string& path);
// The same, from text already read (`path` names it in messages and anchors body paths).
absl::StatusOr<std::vector<TargetLine>> ParseTargetFile(const std::string& path,
                                                        const std::string& text);

}  // namespace uringload::core
