#include "core/flow/text_pattern.h"

#include <re2/re2.h>

#include <atomic>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"

namespace uringload::core {
namespace {

// Bytes, not UTF-8 (a body may hold any); a mistake is returned, not logged.
re2::RE2::Options PatternOptions() {
  re2::RE2::Options options;
  options.set_encoding(re2::RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  return options;
}

std::atomic<uint64_t> next_id{1};

}  // namespace

absl::StatusOr<TextPattern> TextPattern::Compile(std::string_view pattern) {
  re2::RE2 re(re2::StringPiece(pattern.data(), pattern.size()), PatternOptions());
  if (!re.ok()) return absl::InvalidArgumentError(re.error());
  if (re.NumberOfCapturingGroups() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a regex extracts exactly one group, this one has ", re.NumberOfCapturingGroups()));
  }
  TextPattern out;
  out.pattern_ = std::string(pattern);
  out.id_ = next_id.fetch_add(1, std::memory_order_relaxed);
  return out;
}

std::optional<std::string_view> TextPattern::Search(std::string_view text,
                                                    PatternScratch& scratch) const {
  re2::StringPiece group;
  if (!re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), scratch.CopyOf(*this),
                              &group) ||
      group.data() == nullptr) {
    return std::nullopt;
  }
  return std::string_view(group.data(), group.size());
}

PatternScratch::PatternScratch() = default;
PatternScratch::~PatternScratch() = default;

// A flow has a few patterns: a scan finds the copy; the first search of each makes it.
const re2::RE2& PatternScratch::CopyOf(const TextPattern& pattern) {
  for (const Copy& c : copies_) {
    if (c.id == pattern.id_) return *c.re;
  }
  copies_.push_back({pattern.id_, std::make_unique<re2::RE2>(pattern.pattern_, PatternOptions())});
  URINGLOAD_CHECK(copies_.back().re->ok(), "a checked pattern did not compile: %s",
                  pattern.pattern_.c_str());
  return *copies_.back().re;
}

}  // namespace uringload::core
