// Protobuf's wire format (protobuf.dev/programming-guides/encoding), the little that the gRPC
// body template writes by hand: field keys, varints and little-endian fixed widths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace uringload::proto {

enum WireType : uint32_t { kVarint = 0, kFixed64Wire = 1, kLengthDelimited = 2, kFixed32Wire = 5 };

// `v` as a varint at `out` (at most 10 bytes); returns the end.
inline char* WriteVarint(uint64_t v, char* out) {
  while (v >= 0x80) {
    *out++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<char>(v);
  return out;
}

// The key that starts field `field_number` of type `wire`.
inline std::string FieldKey(int field_number, WireType wire) {
  char buffer[10];
  char* end = WriteVarint((static_cast<uint64_t>(field_number) << 3) | wire, buffer);
  return std::string(buffer, end);
}

// The low `bytes` bytes of `v`, little-endian as protobuf's fixed-width types are.
inline char* WriteLittleEndian(uint64_t v, size_t bytes, char* out) {
  for (size_t k = 0; k < bytes; ++k) out[k] = static_cast<char>(v >> (8 * k));
  return out + bytes;
}

}  // namespace uringload::proto
