// ReadRegularFile: a whole file named on the command line, or one line saying why not.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace uringload::core {

// The file's bytes; InvalidArgument "<what> '<path>': <why>" when it is missing, unreadable,
// or not a regular file (a directory reads as zero bytes through a stream, which once sent
// empty bodies without a word).
absl::StatusOr<std::string> ReadRegularFile(const std::string& what, const std::string& path);

}  // namespace uringload::core
