// ProtobufFieldPath: a JSON pointer ("/items/0", "/owner/name") over a protobuf message, for
// a flow's checks and extractions on gRPC answers. Compiled once against the message type
// (field names as proto3's JSON mapping spells them, or as the .proto does; an index after a
// repeated field), then read from each answer's wire bytes without decoding the message: no
// protobuf object and no allocation per answer. A value reads as the text its JSON mapping
// gives (a string as it is, an integer in decimal, a bool as true or false, an enum by its
// name, bytes in base64); a field absent on the wire (proto3 leaves out default values) is
// not found.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/grpc_schema.h"
#include "proto/protobuf_scalar.h"

namespace uringload::proto {

class ProtobufFieldPath {
 public:
  // `pointer` (RFC 6901) into a message of `type` (a full name). Errors name the part of the
  // pointer that the type lacks, or that leads nowhere (past a scalar, a map, a repeated field
  // without an index).
  static absl::StatusOr<ProtobufFieldPath> Compile(const GrpcSchema& schema, std::string_view type,
                                                   std::string_view pointer);

  // The value in `message` (wire bytes) as text, written into `out`: its size, or -1 when the
  // field is absent or the bytes do not parse; `out.size() + 1` when it does not fit.
  int64_t Read(std::string_view message, std::span<char> out) const;

 public:
  // A path is at most this many fields deep (Compile refuses a deeper one).
  static constexpr size_t kMaxSteps = 32;

  // One field of a message on the wire: its number and wire type, and its value's bytes (a
  // varint's bytes as they are).
  struct WireField {
    uint32_t number = 0;
    uint32_t wire = 0;
    std::string_view value;
  };

 private:
  struct Step {
    uint32_t number = 0;
    int64_t index = -1;  // Of a repeated field; -1: a singular one (its last occurrence).
  };
  // A read under way: the elements of each step's repeated field seen so far, and the value.
  struct Search {
    std::array<int64_t, kMaxSteps> seen{};
    std::optional<WireField> found;
  };
  bool Visit(std::string_view chunk, size_t s, Search& search) const;
  std::vector<Step> steps_;
  ProtobufScalar kind_ = ProtobufScalar::kString;  // Of the field at the path's end.
  bool packable_ = false;                          // A repeated scalar: packed or not on the wire.
  std::vector<std::pair<int32_t, std::string>> enum_values_;  // Number, name.
};

}  // namespace uringload::proto
