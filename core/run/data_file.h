// DataFile: the rows of a --data file, whose columns become {name} placeholders: CSV with a
// header line of column names, or NDJSON with one flat object per line (its keys the columns).
// The file is memory-mapped, not copied, and checked whole before any traffic; a worker's
// Reader finds a row through a sparse index (every 64th row's offset) and its own position, so
// the next row costs one line's parse and memory does not grow with the rows.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/file_contents.h"

namespace uringload::core {

class DataFile {
 public:
  enum class Format : uint8_t { kCsv, kNdjson };
  static constexpr size_t kMaxColumns = 64;

  // CSV unless the name ends in .ndjson or .jsonl. Errors name path:line and what is wrong:
  // a missing or empty file, a bad column name, a row with the wrong number of values, an
  // NDJSON line that is not a flat object with the first line's keys, a control character
  // in a value (values go into request lines and headers).
  static absl::StatusOr<DataFile> Open(const std::string& path);

  Format format() const { return format_; }
  const std::vector<std::string>& columns() const { return columns_; }
  // The longest value of each column, as rendered.
  const std::vector<size_t>& max_sizes() const { return max_sizes_; }
  uint64_t rows() const { return row_count_; }
  // The longest line: a bound on what a row's unescaped values need.

  // One worker's access to the rows.
  class Reader {
   public:
    explicit Reader(const DataFile* file);
    // Row `row`'s values by column (row < rows()), valid until the next call.
    std::span<const std::string_view> Row(uint64_t row);

   private:
    const DataFile* file_;
    uint64_t row_ = 0;  // The row that starts at offset_.
    size_t offset_ = 0;
    std::vector<std::string_view> values_;
    std::string scratch_;  // Unescaped values (its capacity is fixed at construction).
  };

 private:
  static constexpr uint64_t kIndexStride = 64;

  // The next row's line at or after `offset` (empty lines skipped), and the offset after it.
  std::string_view NextLine(size_t* offset) const;
  // Splits `line` into values by column; unescaped ones go into `scratch`.
  absl::Status ParseRow(std::string_view line, std::span<std::string_view> values,
                        std::string* scratch) const;

  MappedFile file_;
  std::string path_;
  Format format_ = Format::kCsv;
  std::vector<std::string> columns_;
  std::vector<size_t> max_sizes_;
  uint64_t row_count_ = 0;
  size_t max_line_ = 0;
  size_t first_row_ = 0;       // Offset of the first row (after a CSV's header).
  std::vector<size_t> index_;  // Offset of rows 0, 64, 128, ...
};

}  // namespace uringload::core
