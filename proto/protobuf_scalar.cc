#include "proto/protobuf_scalar.h"

#include <google/protobuf/descriptor.h>

namespace uringload::proto {

std::optional<ProtobufScalar> ScalarOf(const google::protobuf::FieldDescriptor& field) {
  using google::protobuf::FieldDescriptor;
  switch (field.type()) {
    case FieldDescriptor::TYPE_STRING:
      return ProtobufScalar::kString;
    case FieldDescriptor::TYPE_BYTES:
      return ProtobufScalar::kBytes;
    case FieldDescriptor::TYPE_INT32:
      return ProtobufScalar::kInt32;
    case FieldDescriptor::TYPE_INT64:
      return ProtobufScalar::kInt64;
    case FieldDescriptor::TYPE_UINT32:
      return ProtobufScalar::kUint32;
    case FieldDescriptor::TYPE_UINT64:
      return ProtobufScalar::kUint64;
    case FieldDescriptor::TYPE_SINT32:
      return ProtobufScalar::kSint32;
    case FieldDescriptor::TYPE_SINT64:
      return ProtobufScalar::kSint64;
    case FieldDescriptor::TYPE_BOOL:
      return ProtobufScalar::kBool;
    case FieldDescriptor::TYPE_ENUM:
      return ProtobufScalar::kEnum;
    case FieldDescriptor::TYPE_FIXED32:
      return ProtobufScalar::kFixed32;
    case FieldDescriptor::TYPE_FIXED64:
      return ProtobufScalar::kFixed64;
    case FieldDescriptor::TYPE_SFIXED32:
      return ProtobufScalar::kSfixed32;
    case FieldDescriptor::TYPE_SFIXED64:
      return ProtobufScalar::kSfixed64;
    case FieldDescriptor::TYPE_FLOAT:
      return ProtobufScalar::kFloat;
    case FieldDescriptor::TYPE_DOUBLE:
      return ProtobufScalar::kDouble;
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace uringload::proto
