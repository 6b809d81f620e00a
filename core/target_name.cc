#include "core/target_name.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace uringload::core {

bool IsTargetName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

}  // namespace uringload::core
