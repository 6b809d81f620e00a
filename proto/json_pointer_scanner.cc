#include "proto/json_pointer_scanner.h"

#include <bit>

#include "absl/strings/str_cat.h"
#include "net/base/status_macros.h"
#include "proto/json_pointer.h"

namespace uringload::proto {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<JsonPointerSet> JsonPointerSet::Compile(std::span<const std::string> pointers) {
  if (pointers.size() > kMaxPointers) {
    return absl::InvalidArgumentError(
        absl::StrCat("at most ", kMaxPointers, " JSON pointers per step, got ", pointers.size()));
  }
  JsonPointerSet set;
  for (const std::string& text : pointers) {
    URINGLOAD_ASSIGN_OR_RETURN(std::vector<std::string> tokens, ParseJsonPointer(text));
    Pointer p;
    p.tokens = std::move(tokens);
    for (const std::string& token : p.tokens) p.indexes.push_back(JsonPointerIndex(token));
    if (p.tokens.size() >= JsonPointerScanner::kMaxDepth) {
      return absl::InvalidArgumentError(absl::StrCat("'", text, "' is deeper than ",
                                                     JsonPointerScanner::kMaxDepth - 1, " levels"));
    }
    set.pointers_.push_back(std::move(p));
  }
  return set;
}

void JsonPointerScanner::Start(const JsonPointerSet* set, std::span<JsonCapture> captures) {
  set_ = set;
  captures_ = captures;
  for (JsonCapture& c : captures_) c = {.buffer = c.buffer};
  state_ = State::kValue;
  depth_ = 0;
  value_mask_ = set->size() == 32 ? UINT32_MAX : (uint32_t{1} << set->size()) - 1;
  text_mask_ = raw_mask_ = key_mask_ = key_size_ = found_mask_ = 0;
  in_key_ = escape_ = false;
  unicode_digits_ = 0;
  decoder_.Reset();
}

void JsonPointerScanner::Feed(std::string_view piece) {
  for (char c : piece) {
    if (state_ == State::kDone || state_ == State::kFailed) return;
    // A container being captured takes its bytes as they are, closing bracket included.
    if (raw_mask_ != 0) Emit(raw_mask_, c);
    Process(c);
  }
}

void JsonPointerScanner::Process(char c) {
  switch (state_) {
    case State::kValue:
      if (!IsSpace(c)) BeginValue(c);
      return;
    case State::kElementOrEnd:
      if (IsSpace(c)) return;
      if (c == ']') {
        Close();
        return;
      }
      value_mask_ = ElementMask(0);
      BeginValue(c);
      return;
    case State::kAfterValue: {
      if (IsSpace(c)) return;
      Level& top = levels_[depth_ - 1];
      if (c == ',') {
        if (top.array) {
          value_mask_ = ElementMask(++top.index);
          state_ = State::kValue;
        } else {
          state_ = State::kKey;
        }
      } else if (c == (top.array ? ']' : '}')) {
        Close();
      } else {
        state_ = State::kFailed;
      }
      return;
    }
    case State::kKeyOrEnd:
    case State::kKey:
      if (IsSpace(c)) return;
      if (c == '}' && state_ == State::kKeyOrEnd) {
        Close();
      } else if (c == '"') {
        in_key_ = true;
        key_mask_ = levels_[depth_ - 1].alive;
        key_size_ = 0;
        state_ = State::kString;
      } else {
        state_ = State::kFailed;
      }
      return;
    case State::kString:
      StringChar(c);
      return;
    case State::kColon:
      if (IsSpace(c)) return;
      state_ = c == ':' ? State::kValue : State::kFailed;
      return;
    case State::kLiteral:
      if (IsSpace(c) || c == ',' || c == ']' || c == '}') {
        text_mask_ = 0;
        EndValue();
        if (state_ != State::kDone) Process(c);
        return;
      }
      Emit(text_mask_, c);
      return;
    case State::kDone:
    case State::kFailed:
      return;
  }
}

// The value that begins with `c` is named by value_mask_: those of its pointers that end here
// take it; the others go on into it, if it is a container.
void JsonPointerScanner::BeginValue(char c) {
  // A pointer takes the first value it names (a key repeated in an object names two).
  uint32_t ending = EndingAt(value_mask_, depth_) & ~found_mask_;
  found_mask_ |= ending;
  for (uint32_t m = ending; m != 0; m &= m - 1) captures_[std::countr_zero(m)].found = true;
  if (c == '{' || c == '[') {
    Emit(ending, c);
    Open(c == '[', value_mask_ & ~ending, ending);
  } else if (c == '"') {
    for (uint32_t m = ending; m != 0; m &= m - 1) captures_[std::countr_zero(m)].string = true;
    text_mask_ = ending;
    in_key_ = false;
    state_ = State::kString;
  } else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
    text_mask_ = ending;
    Emit(text_mask_, c);
    state_ = State::kLiteral;
  } else {
    state_ = State::kFailed;
  }
}

void JsonPointerScanner::Open(bool array, uint32_t alive, uint32_t raw) {
  if (depth_ == kMaxDepth) {
    state_ = State::kFailed;
    return;
  }
  levels_[depth_] = {.alive = alive, .index = 0, .array = array};
  ++depth_;
  for (uint32_t m = raw; m != 0; m &= m - 1) raw_depth_[std::countr_zero(m)] = depth_;
  raw_mask_ |= raw;
  state_ = array ? State::kElementOrEnd : State::kKeyOrEnd;
}

void JsonPointerScanner::Close() {
  for (uint32_t m = raw_mask_; m != 0; m &= m - 1) {
    int p = std::countr_zero(m);
    if (raw_depth_[p] == depth_) raw_mask_ &= ~(uint32_t{1} << p);
  }
  --depth_;
  EndValue();
}

void JsonPointerScanner::EndValue() { state_ = depth_ == 0 ? State::kDone : State::kAfterValue; }

void JsonPointerScanner::StringChar(char c) {
  if (unicode_digits_ > 0) {
    int digit = HexValue(c);
    if (digit < 0) {
      state_ = State::kFailed;
      return;
    }
    unicode_ = 16 * unicode_ + static_cast<uint32_t>(digit);
    if (--unicode_digits_ == 0) decoder_.Unit(unicode_, [this](char b) { DecodedByte(b); });
    return;
  }
  if (escape_) {
    escape_ = false;
    if (c == 'u') {
      unicode_digits_ = 4;
      unicode_ = 0;
      return;
    }
    char escaped = JsonStringDecoder::Escaped(c);
    if (escaped == 0) {
      state_ = State::kFailed;
      return;
    }
    decoder_.Byte(escaped, [this](char b) { DecodedByte(b); });
    return;
  }
  if (c == '\\') {
    escape_ = true;
    return;
  }
  if (c != '"') {
    decoder_.Byte(c, [this](char b) { DecodedByte(b); });
    return;
  }
  decoder_.End([this](char b) { DecodedByte(b); });  // A high half the string ended after.
  if (in_key_) {
    in_key_ = false;
    // The member's value is named by the pointers whose token is exactly this key.
    uint32_t token = depth_ - 1;
    uint32_t mask = 0;
    for (uint32_t m = key_mask_; m != 0; m &= m - 1) {
      int p = std::countr_zero(m);
      if (set_->pointers_[p].tokens[token].size() == key_size_) mask |= uint32_t{1} << p;
    }
    value_mask_ = mask;
    state_ = State::kColon;
    return;
  }
  text_mask_ = 0;
  EndValue();
}

void JsonPointerScanner::DecodedByte(char c) {
  if (!in_key_) {
    Emit(text_mask_, c);
    return;
  }
  uint32_t token = depth_ - 1;
  for (uint32_t m = key_mask_; m != 0; m &= m - 1) {
    int p = std::countr_zero(m);
    const std::string& want = set_->pointers_[p].tokens[token];
    if (key_size_ >= want.size() || want[key_size_] != c) key_mask_ &= ~(uint32_t{1} << p);
  }
  ++key_size_;
}

void JsonPointerScanner::Emit(uint32_t mask, char c) {
  for (; mask != 0; mask &= mask - 1) {
    JsonCapture& capture = captures_[std::countr_zero(mask)];
    if (capture.size < capture.buffer.size()) {
      capture.buffer[capture.size++] = c;
    } else {
      capture.overflow = true;
    }
  }
}

uint32_t JsonPointerScanner::ElementMask(uint32_t index) const {
  uint32_t token = depth_ - 1;
  uint32_t mask = 0;
  for (uint32_t m = levels_[depth_ - 1].alive; m != 0; m &= m - 1) {
    int p = std::countr_zero(m);
    if (set_->pointers_[p].indexes[token] == index) mask |= uint32_t{1} << p;
  }
  return mask;
}

uint32_t JsonPointerScanner::EndingAt(uint32_t mask, size_t tokens) const {
  uint32_t ending = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    int p = std::countr_zero(m);
    if (set_->pointers_[p].tokens.size() == tokens) ending |= uint32_t{1} << p;
  }
  return ending;
}

}  // namespace uringload::proto
