// JsonStringDecoder: the one place a JSON string's \uXXXX escapes become UTF-8, for every JSON
// reader of the project (a --data NDJSON row, a flow's JSON pointers over a streamed body). A
// surrogate pair is one character; a lone half (a high one not followed by a low one, or a low
// one alone) is U+FFFD, as WHATWG's decoders and most JSON parsers make it, never the CESU
// bytes of the half. It holds one pending high half, so it decodes a string fed a byte at a
// time as well as a whole one.
#pragma once

#include <cstdint>

namespace uringload::proto {

class JsonStringDecoder {
 public:
  static constexpr uint32_t kReplacement = 0xFFFD;

  // A \uXXXX escape's code unit: writes what it completes through `emit(char)`.
  template <typename Emit>
  void Unit(uint32_t unit, Emit&& emit) {
    if (high_ != 0) {
      uint32_t high = high_;
      high_ = 0;
      if (unit >= 0xDC00 && unit <= 0xDFFF) {
        return Utf8(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), emit);
      }
      Utf8(kReplacement, emit);
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      high_ = unit;
      return;
    }
    Utf8(unit >= 0xDC00 && unit <= 0xDFFF ? kReplacement : unit, emit);
  }

  // A byte that is no \u escape: a pending high half ends as U+FFFD first.
  template <typename Emit>
  void Byte(char c, Emit&& emit) {
    End(emit);
    emit(c);
  }

  // The string ended: a pending high half is U+FFFD.
  template <typename Emit>
  void End(Emit&& emit) {
    if (high_ == 0) return;
    high_ = 0;
    Utf8(kReplacement, emit);
  }

  void Reset() { high_ = 0; }

  // The character a one-letter escape (\" \\ \/ \b \f \n \r \t) stands for; 0 for any other
  // letter (\u is the caller's: four hex digits follow it).
  static constexpr char Escaped(char letter) {
    switch (letter) {
      case '"':
      case '\\':
      case '/':
        return letter;
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      default:
        return 0;
    }
  }

  template <typename Emit>
  static void Utf8(uint32_t code_point, Emit&& emit) {
    if (code_point < 0x80) {
      emit(static_cast<char>(code_point));
    } else if (code_point < 0x800) {
      emit(static_cast<char>(0xC0 | (code_point >> 6)));
      emit(static_cast<char>(0x80 | (code_point & 0x3F)));
    } else if (code_point < 0x10000) {
      emit(static_cast<char>(0xE0 | (code_point >> 12)));
      emit(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
      emit(static_cast<char>(0x80 | (code_point & 0x3F)));
    } else {
      emit(static_cast<char>(0xF0 | (code_point >> 18)));
      emit(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
      emit(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
      emit(static_cast<char>(0x80 | (code_point & 0x3F)));
    }
  }

 private:
  uint32_t high_ = 0;  // A \uD800-\uDBFF waiting for its low half.
};

}  // namespace uringload::proto
