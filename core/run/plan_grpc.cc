#include "core/run/plan_grpc.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/plan_limits.h"
#include "core/run/plan_targets.h"
#include "net/base/status_macros.h"
#include "proto/grpc_body_template.h"
#include "proto/grpc_schema.h"
#include "proto/grpc_status.h"

namespace uringload::core {
namespace {

// A call's request messages together: each stream in flight holds its own rendering.
constexpr size_t kMaxCallBody = 64 << 20;

// What a gRPC run cannot be combined with, checked before the schema is read.
absl::Status CheckGrpcOptions(const RunOptions& options) {
  if (!options.grpc_method.has_value()) {
    if (options.proto_file || options.protoset_file || !options.import_paths.empty()) {
      return absl::InvalidArgumentError(
          "--proto, --protoset and --import-path need --grpc, or a --flow with grpc steps");
    }
    return absl::OkStatus();
  }
  if (options.proto_file.has_value() == options.protoset_file.has_value()) {
    return absl::InvalidArgumentError(
        "--grpc needs the service's schema: --proto FILE or --protoset FILE (one of them)");
  }
  if (!options.import_paths.empty() && !options.proto_file.has_value()) {
    return absl::InvalidArgumentError("--import-path goes with --proto");
  }
  if (options.targets_file || options.flow_file || options.replay_file) {
    return absl::InvalidArgumentError("--grpc calls one method: no --targets, --flow or --replay");
  }
  if (options.method != "GET") {
    return absl::InvalidArgumentError("--grpc calls are POSTs: no -m");
  }
  if (options.expect_body_contains.has_value()) {
    return absl::InvalidArgumentError(
        "--grpc: answers are protobuf messages, not text: no --expect-body-contains");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<proto::GrpcSchema>> LoadGrpcSchema(const RunOptions& options) {
  if (!options.proto_file && !options.protoset_file) return std::nullopt;
  URINGLOAD_ASSIGN_OR_RETURN(
      proto::GrpcSchema schema,
      options.proto_file
          ? proto::GrpcSchema::FromProtoFile(*options.proto_file, options.import_paths)
          : proto::GrpcSchema::FromProtoset(*options.protoset_file));
  return std::optional<proto::GrpcSchema>(std::move(schema));
}

absl::Status MakeGrpcCall(const proto::GrpcSchema& schema, const proto::GrpcMethod& method,
                          absl::Duration timeout, const CommonBody& json,
                          proto::TemplateColumns columns, uint32_t messages,
                          proto::RequestSpec& spec) {
  spec.target = method.path;
  char deadline[10];
  size_t deadline_size = 0;
  proto::FormatGrpcTimeout(timeout, deadline, &deadline_size);
  // gRPC's own headers before the metadata (PROTOCOL-HTTP2.md: Call-Definition).
  std::vector<std::string> grpc_headers = {"Content-Type: application/grpc", "TE: trailers",
                                           "grpc-timeout: " + std::string(deadline, deadline_size)};
  spec.headers.insert(spec.headers.begin(), grpc_headers.begin(), grpc_headers.end());
  // A body given as it is (a file without --body-file-placeholders) has its braces escaped,
  // so the template renders it unchanged.
  std::string text = json.is_template ? json.text : proto::TextTemplate::Escape(json.text);
  URINGLOAD_ASSIGN_OR_RETURN(
      proto::GrpcBodyTemplate message,
      proto::GrpcBodyTemplate::Build(schema, method.request_type, text, json.name, columns));
  if (message.max_size() > kMaxCallBody / messages) {
    return absl::InvalidArgumentError(
        absl::StrCat("--stream-messages ", messages, ": the call's messages would take up to ",
                     message.max_size() * messages, " bytes; at most ", kMaxCallBody));
  }
  message.SetMessages(messages);
  spec.grpc_body = std::make_shared<const proto::GrpcBodyTemplate>(std::move(message));
  spec.body_name = json.name;
  return proto::RequestTemplate::Build(spec, columns).status();
}

absl::Status PlanGrpc(const RunOptions& options, RunPlan& plan) {
  URINGLOAD_RETURN_IF_ERROR(CheckGrpcOptions(options));
  if (options.url.empty()) {
    return absl::InvalidArgumentError("--grpc needs the server's URL: http[s]://host:port");
  }
  URINGLOAD_ASSIGN_OR_RETURN(std::optional<proto::GrpcSchema> schema, LoadGrpcSchema(options));
  URINGLOAD_ASSIGN_OR_RETURN(proto::GrpcMethod method, (schema)->FindMethod(*options.grpc_method));
  if (options.stream_messages.has_value()) {
    if (!method.client_streaming) {
      return absl::InvalidArgumentError(
          absl::StrCat("--stream-messages: ", *options.grpc_method,
                       " takes one request message (it is not client-streaming)"));
    }
    URINGLOAD_RETURN_IF_ERROR(CheckRange("--stream-messages", *options.stream_messages, 1,
                                         proto::GrpcBodyTemplate::kMaxMessages));
  }
  URINGLOAD_ASSIGN_OR_RETURN(proto::Url url, SharedConnectionUrl(options.url, plan));
  if (url.target != "/") {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc: the method gives the path (", method.path,
                     "): the URL is only http[s]://host:port, got ", options.url));
  }
  proto::Url call = url;
  call.target = method.path;
  TargetRequest target = NewTarget(options, 0, "", "POST", options.url, call);
  URINGLOAD_ASSIGN_OR_RETURN(std::optional<CommonBody> body, ReadCommonBody(options));
  CommonBody json = body.value_or(CommonBody{.text = "{}", .name = "--body", .is_template = true});
  if (absl::Status s =
          MakeGrpcCall(*schema, method, plan.timeout, json, plan.columns(),
                       static_cast<uint32_t>(options.stream_messages.value_or(1)), target.spec);
      !s.ok()) {
    return s;
  }
  plan.targets.push_back(std::move(target));
  plan.grpc = true;
  return absl::OkStatus();
}

}  // namespace uringload::core
