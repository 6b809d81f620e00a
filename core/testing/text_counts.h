// Small helpers the core tests share: a millisecond on the fake clocks, and how often a part
// occurs in the bytes a fake peer received.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace uringload::core::test_support {

constexpr int64_t kMs = 1'000'000;

// Occurrences of `part` in `text`, overlapping ones included.
inline size_t Occurrences(std::string_view text, std::string_view part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string_view::npos; at = text.find(part, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace uringload::core::test_support
