// DecodeToJson: wire bytes of a message of a schema's type, as libprotobuf's JSON, for tests
// that read back what was encoded (the program itself never turns protobuf into JSON).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "proto/grpc_schema.h"

namespace uringload::proto::testing {

inline absl::StatusOr<std::string> DecodeToJson(const GrpcSchema& schema, std::string_view type,
                                                std::string_view wire) {
  const google::protobuf::Descriptor* descriptor = schema.MessageType(type);
  if (descriptor == nullptr) {
    return absl::NotFoundError(absl::StrCat("no message type ", std::string(type)));
  }
  google::protobuf::DynamicMessageFactory factory(descriptor->file()->pool());
  std::unique_ptr<google::protobuf::Message> message(factory.GetPrototype(descriptor)->New());
  if (!message->ParseFromArray(wire.data(), static_cast<int>(wire.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a ", std::string(type), " in the wire format"));
  }
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(*message, &json);
  if (!status.ok()) return absl::InternalError(status.ToString());
  return json;
}

}  // namespace uringload::proto::testing
