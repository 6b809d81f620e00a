// GrpcBodyTemplate: a gRPC request's body (the 5-byte message prefix, then the protobuf
// message) from a JSON template, built once per run against the method's request type.
// Without placeholders it is fixed bytes, encoded once by libprotobuf. With them, a plan of the
// message's wire format renders each request: the fields without placeholders as bytes encoded
// at start, the fields with them written from their text (a string from its template, an
// integer or float from a whole {i}, {rand:LO-HI}, {shard} or {worker}), each nested message's
// length after its contents. No protobuf object and no allocation per request. The layout
// (Build, with libprotobuf's descriptors) is grpc_body_layout.cc; the rendering is
// grpc_body_template.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/grpc_schema.h"
#include "proto/protobuf_scalar.h"
#include "proto/text_template.h"

namespace uringload::proto {

class GrpcBodyTemplate {
 public:
  // `json` (proto3's JSON mapping, with placeholders in string values or as whole values) as
  // a message of `type` (a full name). `source` names it in errors ("--body", a file's path):
  // a field the type lacks or a value of the wrong type (with its line), a placeholder that
  // is unknown or in a field it cannot fill (bool, enum, bytes, map values, well-known types).
  static absl::StatusOr<GrpcBodyTemplate> Build(const GrpcSchema& schema, std::string_view type,
                                                std::string_view json, std::string_view source,
                                                TemplateColumns columns = {});

  // Each body carries `count` messages (1 to kMaxMessages), as a client-streaming or
  // bidirectional call sends them; each is the call's one rendering, sent again.
  static constexpr uint32_t kMaxMessages = 1'000'000;
  void SetMessages(uint32_t count);
  uint32_t messages() const { return messages_; }

  // No placeholder: every body is fixed().
  bool is_static() const { return nodes_.empty(); }
  // The body (prefix and message), when is_static().
  std::string_view fixed() const { return fixed_; }
  // A data column's placeholder is used.
  bool uses_fields() const { return uses_fields_; }
  // A rendering never needs more bytes than this.
  size_t max_size() const { return max_size_ * messages_; }
  // The body for `context`, written at the start of `out` (max_size() bytes suffice).
  std::string_view RenderInto(const TemplateContext& context, std::span<char> out) const;

 private:
  class Planner;  // grpc_body_layout.cc
  enum class Kind : uint8_t {
    kBytes,    // Fields without placeholders, encoded at start.
    kMessage,  // A nested message: its children follow it, up to children_end.
    kScalar,   // A field written from its text per request, as `scalar` says.
  };
  struct Node {
    Kind kind = Kind::kBytes;
    ProtobufScalar scalar = ProtobufScalar::kString;  // kScalar: a string or a number.
    uint32_t bytes_offset = 0;  // kBytes: the encoded fields; others: the field's key.
    uint32_t bytes_size = 0;
    uint32_t text = 0;          // kScalar: its template in texts_.
    uint32_t children_end = 0;  // kMessage: one past its last descendant in nodes_.
  };

  struct Placeholder {
    std::string text;  // "{i}"
    size_t at;         // In the template's text.
    bool integer;      // Renders an integer ({i}, {rand:..}, {shard}, {worker}).
    bool negative;     // May render below zero ({rand} with a negative LO).
  };
  // Lays the plan of `type` out into `out` from `marked` (the template's JSON, each placeholder
  // a marker), or only checks the placeholders' fields (out null). An InvalidArgument error is
  // about a placeholder, with its place in `json`.
  static absl::Status Plan(const GrpcSchema& schema, const std::string& type, std::string_view json,
                           const std::string& marked, const std::string& name,
                           TemplateColumns columns, std::vector<Placeholder> placeholders,
                           GrpcBodyTemplate* out);
  char* Write(size_t begin, size_t end, const TemplateContext& context, char* out) const;
  size_t MaxSize(size_t begin, size_t end) const;

  std::vector<Node> nodes_;  // In order: a message's descendants right after it.
  std::vector<TextTemplate> texts_;
  std::string bytes_;    // Keys and fields encoded at start.
  std::string fixed_;    // The whole body when static (every message).
  size_t max_size_ = 0;  // Of one message.
  uint32_t messages_ = 1;
  bool uses_fields_ = false;
};

}  // namespace uringload::proto
