// TextPattern: the regexes of flows' `extract: regex:…` and `header:Name:REGEX`, in RE2's
// syntax and RE2's engine (Debian's libre2): linear time in the text whatever the pattern (no
// backtracking), leftmost-first as ECMAScript and Perl, over bytes (Latin-1: an answer need
// not be UTF-8), exactly one capturing group. A pattern is compiled once to check it; each
// worker searches with its own copy (PatternScratch), made at its first search: RE2 builds its
// DFA lazily under a lock, which a copy per worker never contends, and once built a search
// allocates nothing (docs/performance.md has the measurement against the Pike VM it replaced).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace uringload::core {

class PatternScratch;

class TextPattern {
 public:
  // An error says what is wrong (RE2's words, or the number of groups).
  static absl::StatusOr<TextPattern> Compile(std::string_view pattern);

  // The capturing group of the leftmost match in `text`, or none (no match, or a match the
  // group took no part in).
  std::optional<std::string_view> Search(std::string_view text, PatternScratch& scratch) const;

  const std::string& text() const { return pattern_; }

 private:
  friend class PatternScratch;
  std::string pattern_;
  uint64_t id_ = 0;  // Which copy in a PatternScratch is this pattern's.
};

// One worker's copies of the patterns it searches with (one search at a time).
class PatternScratch {
 public:
  PatternScratch();
  ~PatternScratch();
  PatternScratch(const PatternScratch&) = delete;
  PatternScratch& operator=(const PatternScratch&) = delete;

 private:
  friend class TextPattern;
  const re2::RE2& CopyOf(const TextPattern& pattern);
  struct Copy {
    uint64_t id;
    std::unique_ptr<re2::RE2> re;
  };
  std::vector<Copy> copies_;
};

}  // namespace uringload::core
