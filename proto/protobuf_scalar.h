// ProtobufScalar: the scalar types of protobuf's fields, the one mapping from libprotobuf's
// field types (ScalarOf) for every part of uringload that writes or reads fields by hand: the
// gRPC body templates (grpc_body_layout.cc) and the field paths of a flow's checks
// (protobuf_field_path.cc). With the wire type each travels as.
#pragma once

#include <cstdint>
#include <optional>

#include "proto/protobuf_wire.h"

namespace google::protobuf {
class FieldDescriptor;
}  // namespace google::protobuf

namespace uringload::proto {

enum class ProtobufScalar : uint8_t {
  kString,
  kBytes,
  kInt32,  // Varints, by how their value reads.
  kInt64,
  kUint32,
  kUint64,
  kSint32,
  kSint64,
  kBool,
  kEnum,
  kFixed32,  // Little-endian, of a fixed width.
  kFixed64,
  kSfixed32,
  kSfixed64,
  kFloat,
  kDouble,
};

// The field's scalar type; none for a message (or a group).
std::optional<ProtobufScalar> ScalarOf(const google::protobuf::FieldDescriptor& field);

constexpr WireType WireOf(ProtobufScalar scalar) {
  switch (scalar) {
    case ProtobufScalar::kString:
    case ProtobufScalar::kBytes:
      return kLengthDelimited;
    case ProtobufScalar::kFixed32:
    case ProtobufScalar::kSfixed32:
    case ProtobufScalar::kFloat:
      return kFixed32Wire;
    case ProtobufScalar::kFixed64:
    case ProtobufScalar::kSfixed64:
    case ProtobufScalar::kDouble:
      return kFixed64Wire;
    default:
      return kVarint;
  }
}

// Its values are never below zero.
constexpr bool IsUnsigned(ProtobufScalar scalar) {
  return scalar == ProtobufScalar::kUint32 || scalar == ProtobufScalar::kUint64 ||
         scalar == ProtobufScalar::kFixed32 || scalar == ProtobufScalar::kFixed64;
}

}  // namespace uringload::proto
