// A target's name: a --targets line's name=, a flow step's (and flow's) name. It goes into
// --fail-if expressions, JSON keys and metric labels, so it is letters, digits, '_', '-' and
// '.' only.
#pragma once

#include <string_view>

namespace uringload::core {

bool IsTargetName(std::string_view name);

}  // namespace uringload::core
