#include "proto/json_pointer.h"

#include "absl/strings/str_cat.h"
#include "net/base/absl_view.h"

namespace uringload::proto {

absl::StatusOr<std::vector<std::string>> ParseJsonPointer(std::string_view text) {
  if (!text.empty() && text[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("'", AbslView(text), "' is not a JSON pointer: it must start with '/'"));
  }
  std::vector<std::string> tokens;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('/', at + 1);
    if (end == std::string_view::npos) end = text.size();
    std::string token;
    for (size_t k = at + 1; k < end; ++k) {
      if (text[k] != '~') {
        token.push_back(text[k]);
      } else if (k + 1 < end && (text[k + 1] == '0' || text[k + 1] == '1')) {
        token.push_back(text[++k] == '0' ? '~' : '/');
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("'", AbslView(text), "' is not a JSON pointer: '~' must be ~0 or ~1"));
      }
    }
    tokens.push_back(std::move(token));
    at = end;
  }
  return tokens;
}

int64_t JsonPointerIndex(std::string_view token) {
  if (token.empty() || token.size() > 18 || (token.size() > 1 && token[0] == '0')) return -1;
  int64_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return -1;
    value = 10 * value + (c - '0');
  }
  return value;
}

}  // namespace uringload::proto
