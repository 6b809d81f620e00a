// The protobuf oracle: checks that GrpcBodyTemplate renders, for a request, what libprotobuf
// itself makes of the same JSON with that request's values written in (JsonStringToMessage,
// then serialized). Both sides are parsed back and serialized deterministically, so that the
// field order may differ but not one byte of content, and an unknown field (a length that
// swallowed the next field) is a difference. The bodies come from random_protobuf.h. Used by
// grpc_body_oracle_test.cc and tests/fuzz/grpc_body_fuzz.cc.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "net/base/absl_view.h"
#include "proto/grpc_body_template.h"
#include "proto/grpc_message.h"
#include "proto/grpc_schema.h"
#include "proto/testing/random_protobuf.h"

namespace uringload::proto::testing {

// Renders `body` for `request` with a GrpcBodyTemplate built from its template and compares
// it with libprotobuf's encoding of the rendered JSON. Returns "" when they agree, else what
// differs (with both messages as text).
class ProtobufOracle {
 public:
  ProtobufOracle(const GrpcSchema& schema, std::string type)
      : schema_(schema),
        type_(std::move(type)),
        descriptor_(schema.MessageType(type_)),
        factory_(descriptor_->file()->pool()) {}

  const google::protobuf::Descriptor& descriptor() const { return *descriptor_; }

  // Builds the template (an error is a difference: the oracle's bodies are all valid).
  std::string Check(const OracleBody& body, const std::vector<OracleBody::Request>& requests) {
    std::string text = body.Template();
    std::vector<size_t> sizes(body.column_names.size(), 0);
    for (const auto& request : requests) {
      for (size_t k = 0; k < sizes.size(); ++k) {
        sizes[k] = std::max(sizes[k], request.columns[k].size());
      }
    }
    absl::StatusOr<GrpcBodyTemplate> built = GrpcBodyTemplate::Build(
        schema_, type_, text, "--body", {.names = body.column_names, .max_sizes = sizes});
    if (!built.ok()) return absl::StrCat("template refused: ", built.status().ToString());
    std::string out(built->max_size(), '\0');
    for (const auto& request : requests) {
      std::vector<std::string_view> fields(request.columns.begin(), request.columns.end());
      TemplateContext context{.index = request.index,
                              .shard = request.shard,
                              .worker = request.worker,
                              .fields = fields};
      std::string_view sent = built->RenderInto(context, out);
      std::string json = body.Rendered(request);
      absl::StatusOr<std::string> want = schema_.EncodeJson(type_, json);
      if (!want.ok()) {
        return absl::StrCat("libprotobuf refused ", json, ": ", want.status().ToString());
      }
      std::string difference = Compare(sent, *want);
      if (!difference.empty()) {
        return absl::StrCat("request ", request.index, " of template ", text, "\nrendered ", json,
                            "\n", difference);
      }
    }
    return "";
  }

 private:
  std::string Compare(std::string_view sent, const std::string& want) {
    std::optional<GrpcPrefix> prefix = ReadGrpcPrefix(sent);
    if (!prefix.has_value()) return "shorter than the prefix";
    if (prefix->flag != 0 || prefix->size != sent.size() - kGrpcPrefixBytes) {
      return "a wrong prefix";
    }
    std::string_view message = sent.substr(kGrpcPrefixBytes);
    std::unique_ptr<google::protobuf::Message> got(factory_.GetPrototype(descriptor_)->New());
    std::unique_ptr<google::protobuf::Message> expected(got->New());
    if (!got->ParseFromArray(message.data(), static_cast<int>(message.size()))) {
      return absl::StrCat("uringload's bytes do not parse: ", Hex(message));
    }
    expected->ParseFromString(want);
    std::string a = Canonical(*got), b = Canonical(*expected);
    if (a == b) return "";
    return absl::StrCat("uringload: ", Hex(message), "\n", got->DebugString(),
                        "libprotobuf: ", Hex(want), "\n", expected->DebugString());
  }

  static std::string Hex(std::string_view bytes) { return absl::BytesToHexString(AbslView(bytes)); }

  static std::string Canonical(const google::protobuf::Message& message) {
    std::string out;
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
    coded.Trim();
    return out;
  }

  const GrpcSchema& schema_;
  std::string type_;
  const google::protobuf::Descriptor* descriptor_;
  google::protobuf::DynamicMessageFactory factory_;
};

}  // namespace uringload::proto::testing
