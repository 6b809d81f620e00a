// JSON pointers (RFC 6901): "/items/0/id" as its reference tokens, unescaped ("~1" is '/',
// "~0" is '~'), and a token read as an array index. The one reading of pointers for the flows'
// JSON checks and extractions, the scanner that finds them in a streamed body, and the field
// paths into gRPC answers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::proto {

// "" is the whole document (no token); anything else starts with '/'. An error names the text
// and what is wrong with it.
absl::StatusOr<std::vector<std::string>> ParseJsonPointer(std::string_view text);

// A token as an array index: digits without a leading zero (RFC 6901 4), else -1.
int64_t JsonPointerIndex(std::string_view token);

}  // namespace uringload::proto
