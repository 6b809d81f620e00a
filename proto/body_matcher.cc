#include "proto/body_matcher.h"

#include <utility>

#include "net/base/check.h"

namespace uringload::proto {

BodyMatcher::BodyMatcher(std::string text) : text_(std::move(text)), fallback_(text_.size(), 0) {
  URINGLOAD_CHECK(!text_.empty(), "an empty text matches every body");
  uint32_t k = 0;
  for (size_t i = 1; i < text_.size(); ++i) {
    while (k > 0 && text_[i] != text_[k]) k = fallback_[k - 1];
    if (text_[i] == text_[k]) ++k;
    fallback_[i] = k;
  }
}

uint32_t BodyMatcher::Feed(uint32_t state, std::string_view piece) const {
  if (state == kFound) return kFound;
  for (char c : piece) {
    while (state > 0 && c != text_[state]) state = fallback_[state - 1];
    if (c == text_[state] && ++state == text_.size()) return kFound;
  }
  return state;
}

}  // namespace uringload::proto
