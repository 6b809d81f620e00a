// ReadRegularFile and MappedFile: a whole file named on the command line, read or mapped, or
// one line saying why not.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace uringload::core {

// The file's bytes; InvalidArgument "<what> '<path>': <why>" when it is missing, unreadable,
// or not a regular file (a directory reads as zero bytes through a stream, which once sent
// empty bodies without a word).
absl::StatusOr<std::string> ReadRegularFile(const std::string& what, const std::string& path);

// A regular file mapped read-only (its pages come from the page cache, not the heap), unmapped
// on destruction; errors as ReadRegularFile's.
class MappedFile {
 public:
  static absl::StatusOr<MappedFile> Map(const std::string& what, const std::string& path);
  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }
  MappedFile& operator=(MappedFile&& other) noexcept;
  ~MappedFile();

  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace uringload::core
