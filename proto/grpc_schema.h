// A gRPC service's schema, read once at start: from a .proto file (parsed by libprotoc, its
// imports found on the import paths) or a FileDescriptorSet (`protoc --descriptor_set_out
// --include_imports`). It finds a method by name and turns JSON (proto3's JSON mapping) into
// the method's request message in protobuf's wire format, with libprotobuf's DynamicMessage:
// no generated code. Protobuf's types stay behind this header, but for the descriptor of a
// message type, which grpc_body_layout.cc lays a template's wire format out from.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace google::protobuf {
class Descriptor;
}  // namespace google::protobuf

namespace uringload::proto {

struct GrpcMethod {
  std::string path;          // "/shop.Cart/Get": the request's :path.
  std::string request_type;  // Full names: "shop.GetRequest".
  std::string response_type;
  bool client_streaming = false;
  bool server_streaming = false;
};

class GrpcSchema {
 public:
  // Parses `proto_file`; its imports are looked up in `import_paths`, then beside it, then
  // among protobuf's well-known types (google/protobuf/*.proto). A file
  // that does not parse is an error with the parser's file, line and message.
  static absl::StatusOr<GrpcSchema> FromProtoFile(std::string_view proto_file,
                                                  std::span<const std::string> import_paths);
  // Reads a serialized FileDescriptorSet holding the service's file and its imports.
  static absl::StatusOr<GrpcSchema> FromProtoset(std::string_view protoset_file);

  // "shop.Cart/Get" (as grpcurl and ghz spell it) or "shop.Cart.Get". Not found: an error that
  // names the services, or the service's methods.
  absl::StatusOr<GrpcMethod> FindMethod(std::string_view name) const;

  // `json` as a message of `type` (a full name), in the wire format. An error names the field
  // and the line of `json` it is on, when the parser names one.
  absl::StatusOr<std::string> EncodeJson(std::string_view type, std::string_view json) const;
  // The message type `type` (a full name), or null when the schema has none.
  const google::protobuf::Descriptor* MessageType(std::string_view type) const;

 private:
  struct Pool;  // The descriptor pool and what keeps it alive (importer or database).
  explicit GrpcSchema(std::shared_ptr<const Pool> pool) : pool_(std::move(pool)) {}
  std::shared_ptr<const Pool> pool_;
};

}  // namespace uringload::proto
