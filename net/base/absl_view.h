// AbslView: a std::string_view as an absl::string_view. Debian 12's Abseil is built with a
// string_view type of its own, not an alias of the standard one, so every call into absl's
// string functions with a std::string_view converts; this is the one way it does.
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"

namespace uringload {

inline absl::string_view AbslView(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace uringload
