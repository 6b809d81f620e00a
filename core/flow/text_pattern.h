// TextPattern: the regexes of flows' `extract: regex:…`, compiled once and searched without
// allocating (std::regex allocates twice per search): a Pike VM (Thompson's construction,
// leftmost-first like ECMAScript and Perl) over a program of at most kMaxInstructions, whose
// thread lists live in a PatternScratch the caller keeps. The syntax is ECMAScript's common
// core: literals and escapes, `.`, classes `[a-z_]` `[^"]`, `\d \w \s \D \W \S`, `*` `+` `?`
// (and their lazy `*?` `+?` `??`), `|`, `(?:…)`, `^` `$`, and exactly one capturing group.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::core {

class PatternScratch;

class TextPattern {
 public:
  static constexpr size_t kMaxInstructions = 512;

  // An error says what is wrong and where ("at 4: ...").
  static absl::StatusOr<TextPattern> Compile(std::string_view pattern);

  // The capturing group of the leftmost match in `text`, or none.
  std::optional<std::string_view> Search(std::string_view text, PatternScratch& scratch) const;

  size_t size() const { return program_.size(); }

 private:
  friend class PatternParser;
  friend class PatternScratch;
  enum class Op : uint8_t { kChar, kAny, kClass, kSplit, kJump, kSave, kBegin, kEnd, kMatch };
  struct Instruction {
    Op op = Op::kMatch;
    char c = 0;
    uint16_t x = 0;  // kClass: the class; kSplit: the preferred branch; kJump, kSave: its target.
    uint16_t y = 0;  // kSplit: the other branch.
  };
  std::vector<Instruction> program_;
  std::vector<std::bitset<256>> classes_;
};

// The thread lists of one search at a time, for programs of up to kMaxInstructions: made once
// (a worker's), reused by every search.
class PatternScratch {
 public:
  PatternScratch();

 private:
  friend class TextPattern;
  struct Thread {
    uint16_t pc;
    int32_t start;  // The group's bounds, -1 when not reached.
    int32_t end;
  };
  struct List {
    std::vector<Thread> threads;
    std::vector<uint32_t> seen;  // By pc: the generation that added it.
    uint32_t size = 0;
  };
  std::array<List, 2> lists_;
  std::vector<Thread> stack_;  // Threads being followed through splits and jumps.
  uint32_t generation_ = 0;
};

}  // namespace uringload::core
