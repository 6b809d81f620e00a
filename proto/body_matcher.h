// BodyMatcher: whether a response body contains a text, fed in the pieces it arrives in (split
// across receives, TLS records, chunks or DATA frames) without keeping any of the body: the
// Knuth-Morris-Pratt automaton over the text, whose state is how many of its bytes the body
// ends with so far. One matcher serves every response of a run; each response keeps only its
// state (a 32-bit count), so checking a body allocates nothing per request.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace uringload::proto {

class BodyMatcher {
 public:
  // The state of a body once the text was found in it.
  static constexpr uint32_t kFound = UINT32_MAX;

  // `text` must not be empty (every body would contain it).
  explicit BodyMatcher(std::string text);

  // The state after `piece`, from `state` (0 at the body's start).
  uint32_t Feed(uint32_t state, std::string_view piece) const;
  std::string_view text() const { return text_; }

 private:
  std::string text_;
  // fallback_[k]: with k bytes matched and the next one different, the longest proper
  // prefix of the text that is also a suffix of those k bytes.
  std::vector<uint32_t> fallback_;
};

}  // namespace uringload::proto
