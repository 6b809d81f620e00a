// JsonPointerScanner: the values at a few JSON pointers (RFC 6901) of a body fed in the pieces
// it arrives in, without keeping the body or building a tree: one pass of a small state
// machine whose memory is fixed (a stack of kMaxDepth levels), writing each value found into
// a buffer its caller owns. A string value is written decoded; any other value (number, true,
// false, null, an object or an array) as its JSON text. For flows' `extract: json:` and
// `expect: json:`, run on every response of a step, so nothing here allocates per body.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/json_string_decoder.h"

namespace uringload::proto {

// The pointers one body is scanned for, compiled once.
class JsonPointerSet {
 public:
  static constexpr size_t kMaxPointers = 32;

  // Each must be a JSON pointer ("" or "/a/0/b", ~0 and ~1 escaped); at most kMaxPointers.
  static absl::StatusOr<JsonPointerSet> Compile(std::span<const std::string> pointers);

  size_t size() const { return pointers_.size(); }

 private:
  friend class JsonPointerScanner;
  struct Pointer {
    std::vector<std::string> tokens;  // Unescaped.
    std::vector<int64_t> indexes;     // Each token as an array index, or -1.
  };
  std::vector<Pointer> pointers_;
};

// Where the value at one pointer goes.
struct JsonCapture {
  std::span<char> buffer;
  uint32_t size = 0;      // Bytes of the value written (at most the buffer's size).
  bool found = false;     // The body had a value at the pointer.
  bool overflow = false;  // The value was longer than the buffer (size is the buffer's).
  bool string = false;    // The value was a JSON string (written decoded).
  std::string_view value() const { return {buffer.data(), size}; }
};

class JsonPointerScanner {
 public:
  static constexpr size_t kMaxDepth = 24;

  // A new body, scanned for `set`'s pointers into `captures` (one per pointer, in order; the
  // set and the buffers must outlive the scan). Clears the captures.
  void Start(const JsonPointerSet* set, std::span<JsonCapture> captures);
  void Feed(std::string_view piece);
  // The body so far is not JSON (or nests deeper than kMaxDepth): nothing more is found.
  bool failed() const { return state_ == State::kFailed; }

 private:
  enum class State : uint8_t {
    kValue,         // A value is next.
    kElementOrEnd,  // In an array just opened: a value or ']'.
    kAfterValue,    // A ',' or the container's end is next.
    kKeyOrEnd,      // In an object just opened: a key or '}'.
    kKey,           // A key is next (after a ',').
    kString,        // Inside a string (a key or a value).
    kColon,         // The ':' after a key.
    kLiteral,       // Inside a number, true, false or null.
    kDone,          // The body's value ended; the rest is ignored.
    kFailed,
  };
  struct Level {
    uint32_t alive = 0;  // Pointers whose tokens so far name this container, and go deeper.
    uint32_t index = 0;  // In an array: the current element's.
    bool array = false;
  };

  void Process(char c);
  void BeginValue(char c);
  void Open(bool array, uint32_t alive, uint32_t raw);
  void Close();
  void EndValue();
  void StringChar(char c);
  void DecodedByte(char c);
  void Emit(uint32_t mask, char c);
  // The pointers that name element `index` of the innermost array.
  uint32_t ElementMask(uint32_t index) const;
  // Of `mask`, the pointers with exactly `tokens` tokens.
  uint32_t EndingAt(uint32_t mask, size_t tokens) const;

  const JsonPointerSet* set_ = nullptr;
  std::span<JsonCapture> captures_;
  State state_ = State::kValue;
  std::array<Level, kMaxDepth> levels_{};
  uint32_t depth_ = 0;       // Containers open.
  uint32_t value_mask_ = 0;  // Pointers naming the value about to begin.
  uint32_t text_mask_ = 0;   // Pointers taking the string or literal being read, decoded.
  uint32_t raw_mask_ = 0;    // Pointers taking every byte (a container value being read).
  uint32_t found_mask_ = 0;  // Pointers that found their value.
  std::array<uint8_t, JsonPointerSet::kMaxPointers> raw_depth_{};  // Where each one closes.
  bool in_key_ = false;         // The string being read is a key.
  uint32_t key_mask_ = 0;       // In a key: the pointers whose token it still equals.
  uint32_t key_size_ = 0;       // Decoded bytes of the key so far.
  bool escape_ = false;         // After a backslash.
  uint8_t unicode_digits_ = 0;  // Of a \uXXXX escape, hex digits still to come.
  uint32_t unicode_ = 0;
  JsonStringDecoder decoder_;  // A string's \uXXXX escapes.
};

}  // namespace uringload::proto
