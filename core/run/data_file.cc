#include "core/run/data_file.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/absl_view.h"
#include "net/base/check.h"
#include "net/base/status_macros.h"
#include "proto/json_scan.h"

namespace uringload::core {
namespace {

absl::Status Invalid(std::string_view why) { return absl::InvalidArgumentError(std::string(why)); }

bool IsName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(),
                                      [](char c) { return absl::ascii_isalnum(c) || c == '_'; });
}

// Values go into request lines and header fields, where a control character would end them.
absl::Status CheckValue(std::string_view column, std::string_view value) {
  for (char c : value) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
      return Invalid(
          absl::StrCat("the value of '", std::string(column), "' holds a control character"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view DataFile::NextLine(size_t* offset) const {
  std::string_view bytes = file_.bytes();
  while (*offset < bytes.size()) {
    size_t end = bytes.find('\n', *offset);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view line = bytes.substr(*offset, end - *offset);
    *offset = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) return line;
  }
  *offset = bytes.size();
  return {};
}

absl::Status DataFile::ParseRow(std::string_view line, std::span<std::string_view> values,
                                std::string* scratch) const {
  scratch->clear();
  size_t n = columns_.size();
  if (format_ == Format::kCsv) {
    size_t at = 0;
    for (size_t column = 0; column < n; ++column) {
      if (at > line.size()) {
        return Invalid(absl::StrCat("the row has ", column, " values, the header ", n));
      }
      std::string_view value;
      if (at < line.size() && line[at] == '"') {
        // RFC 4180: a quoted value, "" for a quote.
        size_t start = scratch->size();
        size_t k = at + 1;
        bool escaped = false;
        while (true) {
          size_t quote = line.find('"', k);
          if (quote == std::string_view::npos) {
            return Invalid("a quoted value has no closing quote (--data takes one row a line)");
          }
          if (quote + 1 < line.size() && line[quote + 1] == '"') {
            scratch->append(line.substr(k, quote + 1 - k));
            k = quote + 2;
            escaped = true;
            continue;
          }
          if (escaped) {
            scratch->append(line.substr(k, quote - k));
            value = std::string_view(scratch->data() + start, scratch->size() - start);
          } else {
            value = line.substr(at + 1, quote - at - 1);
          }
          at = quote + 1;
          break;
        }
        if (at < line.size() && line[at] != ',') {
          return Invalid("a quoted value is followed by more than a comma");
        }
      } else {
        size_t end = std::min(line.find(',', at), line.size());
        value = line.substr(at, end - at);
        at = end;
      }
      values[column] = value;
      ++at;  // Past the comma (or past the end after the last value).
    }
    if (at <= line.size()) {
      size_t extra = 1 + static_cast<size_t>(std::count(line.begin() + at, line.end(), ','));
      return Invalid(absl::StrCat("the row has ", n + extra, " values, the header ", n));
    }
    return absl::OkStatus();
  }
  uint64_t seen = 0;  // Columns found, as bits (kMaxColumns bounds them).
  absl::Status s = proto::ForEachFlatMember(
      line, [&](std::string_view key, std::string_view raw, bool is_string) -> absl::Status {
        auto column = std::find(columns_.begin(), columns_.end(), key);
        if (column == columns_.end()) {
          return Invalid(absl::StrCat("key '", std::string(key), "' is not in the first line"));
        }
        size_t k = static_cast<size_t>(column - columns_.begin());
        if ((seen >> k) & 1)
          return Invalid(absl::StrCat("key '", std::string(key), "' appears twice"));
        seen |= uint64_t{1} << k;
        if (!is_string) {
          values[k] = raw;
          return absl::OkStatus();
        }
        return proto::DecodeJsonString(raw, scratch, &values[k]);
      });
  if (!s.ok()) return s;
  for (size_t k = 0; k < n; ++k) {
    if (((seen >> k) & 1) == 0) return Invalid(absl::StrCat("key '", columns_[k], "' is missing"));
  }
  return absl::OkStatus();
}

absl::StatusOr<DataFile> DataFile::Open(const std::string& path) {
  URINGLOAD_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::Map("--data", path));
  DataFile data;
  data.file_ = std::move(mapped);
  data.path_ = path;
  data.format_ = absl::EndsWith(path, ".ndjson") || absl::EndsWith(path, ".jsonl") ? Format::kNdjson
                                                                                   : Format::kCsv;
  // Line numbers count every line, empty ones too.
  std::string_view bytes = data.file_.bytes();
  auto line_of = [&](size_t offset) {
    return 1 + std::count(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(offset), '\n');
  };
  auto fail = [&](size_t offset, std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--data ", path, ":", line_of(offset), ": ", std::string(why)));
  };
  size_t offset = 0;
  std::string_view first = data.NextLine(&offset);
  if (first.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--data ", path, ": the file is empty"));
  }
  size_t first_at = static_cast<size_t>(first.data() - bytes.data());
  if (data.format_ == Format::kCsv) {
    for (absl::string_view piece : absl::StrSplit(AbslView(first), ',')) {
      std::string_view name(piece.data(), piece.size());
      if (!IsName(name)) {
        return fail(first_at, absl::StrCat("column name '", piece,
                                           "' is not letters, digits and _ (the first line "
                                           "names the columns)"));
      }
      data.columns_.emplace_back(name);
    }
    data.first_row_ = offset;
  } else {
    std::string scratch;
    absl::Status s = proto::ForEachFlatMember(
        first, [&](std::string_view key, std::string_view, bool) -> absl::Status {
          if (!IsName(key)) {
            return Invalid(
                absl::StrCat("key '", std::string(key), "' is not letters, digits and _"));
          }
          if (std::find(data.columns_.begin(), data.columns_.end(), key) != data.columns_.end()) {
            return Invalid(absl::StrCat("key '", std::string(key), "' appears twice"));
          }
          data.columns_.emplace_back(key);
          return absl::OkStatus();
        });
    if (!s.ok()) return fail(first_at, std::string(s.message()));
    data.first_row_ = first_at;
  }
  if (data.columns_.size() > kMaxColumns) {
    return fail(first_at, absl::StrCat(data.columns_.size(), " columns; at most ", kMaxColumns));
  }
  for (size_t k = 0; k < data.columns_.size(); ++k) {
    for (size_t j = 0; j < k; ++j) {
      if (data.columns_[j] == data.columns_[k]) {
        return fail(first_at, absl::StrCat("column '", data.columns_[k], "' appears twice"));
      }
    }
  }
  data.max_sizes_.assign(data.columns_.size(), 0);
  std::vector<std::string_view> values(data.columns_.size());
  std::string scratch;
  offset = data.first_row_;
  while (true) {
    if (data.row_count_ % kIndexStride == 0) data.index_.push_back(offset);
    std::string_view line = data.NextLine(&offset);
    if (line.empty()) break;
    size_t at = static_cast<size_t>(line.data() - bytes.data());
    scratch.reserve(line.size());
    if (absl::Status s = data.ParseRow(line, values, &scratch); !s.ok()) {
      return fail(at, std::string(s.message()));
    }
    for (size_t k = 0; k < values.size(); ++k) {
      if (absl::Status s = CheckValue(data.columns_[k], values[k]); !s.ok()) {
        return fail(at, std::string(s.message()));
      }
      data.max_sizes_[k] = std::max(data.max_sizes_[k], values[k].size());
    }
    data.max_line_ = std::max(data.max_line_, line.size());
    ++data.row_count_;
  }
  if (data.row_count_ == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--data ", path, ": the file has no rows",
                     data.format_ == Format::kCsv ? " under its header line" : ""));
  }
  return data;
}

DataFile::Reader::Reader(const DataFile* file)
    : file_(file), offset_(file->first_row_), values_(file->columns_.size()) {
  scratch_.reserve(file->max_line_);
}

std::span<const std::string_view> DataFile::Reader::Row(uint64_t row) {
  URINGLOAD_CHECK(row < file_->row_count_, "row %lu of %lu", row, file_->row_count_);
  if (row < row_ || row - row_ >= kIndexStride) {
    row_ = row / kIndexStride * kIndexStride;
    offset_ = file_->index_[row / kIndexStride];
  }
  for (; row_ < row; ++row_) file_->NextLine(&offset_);
  std::string_view line = file_->NextLine(&offset_);
  ++row_;
  // Checked whole by Open: the same bytes parse the same way.
  absl::Status s = file_->ParseRow(line, values_, &scratch_);
  URINGLOAD_CHECK(s.ok(), "row %lu: %s", row, std::string(s.message()).c_str());
  return values_;
}

}  // namespace uringload::core
