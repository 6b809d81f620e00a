// FlattenJson: parses a JSON document into "path.to.key" -> scalar text (arrays by index,
// strings unquoted), enough for tests to assert on uringload's JSON output.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace uringload::testing {

using FlatJson = std::map<std::string, std::string>;

absl::StatusOr<FlatJson> FlattenJson(std::string_view text);
// The JSON document in the file at `path`, flattened; empty when there is none or it does
// not parse (a server's counts it writes as it exits).
FlatJson ReadFlatJson(const std::string& path);

// The value at `path` as an integer; fails the calling test when missing or not a number.
uint64_t JsonCount(const FlatJson& json, const std::string& path);
// The value at `path` as a number; fails the calling test (and gives -1) when missing or not
// a number.
double JsonNumber(const FlatJson& json, const std::string& path);

}  // namespace uringload::testing
