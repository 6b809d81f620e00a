// RequestTemplate: the request built once per run, rendered per request with its placeholders
// (TextTemplate) filled in the target, header values and body: as HTTP/1.1 bytes into a
// connection's buffer, or as the header fields, path and body an HTTP/2 stream sends
// (Http2ClientSession). Content-Length follows the rendered body.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/grpc_body_template.h"
#include "proto/text_template.h"

namespace uringload::proto {

struct RequestSpec {
  std::string method = "GET";
  std::string scheme = "http";       // HTTP/2's :scheme.
  std::string target = "/";          // Target, header values and body may hold placeholders.
  std::string host_header;           // Used unless `headers` sets Host.
  std::vector<std::string> headers;  // "Name: value" lines, validated by Build().
  std::string body;
  std::string body_name = "body";  // Names the body in errors (e.g. --body-file's path).
  // A body from a file is sent byte for byte unless asked to be a template: a binary file
  // may hold any brace, and a file that holds "{i}" must not change silently.
  bool body_is_template = true;
  // gRPC: the body is this message template's rendering, and `body` is not used.
  std::shared_ptr<const GrpcBodyTemplate> grpc_body;
  // A gRPC call: its answer is read as gRPC's (messages, grpc-status). Implied by grpc_body;
  // alone, `body` is the call's messages as they are.
  bool grpc = false;
  bool keep_alive = true;
  // HTTP/1.1: a template rendered as it is after `headers`, whole lines each ending in CRLF or
  // nothing (a flow's Cookie line, absent while its jar is empty). HTTP/2 leaves it out.
  std::string extra_lines;
};

class RequestTemplate {
 public:
  // An HTTP/2 header field (names in lower case, pseudo-headers first).
  struct Field {
    std::string name;
    TextTemplate value;
  };

  // Validates the spec (method token, header syntax, no framing headers, placeholders) and
  // lays out bytes. A placeholder's error names the part: "URL path '/a/{x}': column 4: ...".
  static absl::StatusOr<RequestTemplate> Build(const RequestSpec& spec,
                                               TemplateColumns columns = {});

  // No placeholder anywhere: every request is static_bytes().
  bool is_static() const { return head_.is_static() && body_in_head_; }
  // A data column's placeholder is used.
  bool uses_fields() const { return uses_fields_; }
  bool is_head() const { return is_head_; }
  // Bytes of a rendered HTTP/1.1 request can never exceed this.
  size_t max_size() const {
    if (body_in_head_) return head_.max_size();
    return head_.max_size() + TextTemplate::kMaxIntegerDigits + tail_.size() + body_max_size();
  }
  // The complete request when is_static().
  std::string_view static_bytes() const { return head_.fixed(); }
  // The HTTP/1.1 request for `context`, written at the start of `out` (max_size() bytes
  // suffice).
  std::string_view RenderInto(const TemplateContext& context, std::span<char> out) const;

  // HTTP/2: every header field but :path and content-length, the :path and the body (whose
  // rendered size is the content-length, when has_body()).
  std::span<const Field> http2_fields() const { return http2_fields_; }
  const TextTemplate& path() const { return path_; }
  bool has_body() const { return has_body_; }
  // A gRPC call (its body a GrpcBodyTemplate).
  bool is_grpc() const { return grpc_; }

  // The body, from its text template or its gRPC message template: fixed bytes when
  // body_is_static(), else rendered per request into max_size() bytes.
  bool body_is_static() const { return grpc_body_ ? grpc_body_->is_static() : body_.is_static(); }
  std::string_view static_body() const { return grpc_body_ ? grpc_body_->fixed() : body_.fixed(); }
  size_t body_max_size() const { return grpc_body_ ? grpc_body_->max_size() : body_.max_size(); }
  std::string_view RenderBody(const TemplateContext& context, std::span<char> out) const {
    return grpc_body_ ? grpc_body_->RenderInto(context, out) : body_.RenderInto(context, out);
  }
  // HTTP/2 and HTTP/3: the body of a request for `context`, the fixed bytes or rendered into
  // `storage` (grown once to body_max_size(), its capacity kept); empty without a body.
  std::string_view BodyFor(const TemplateContext& context, std::string& storage) const {
    if (!has_body_) return {};
    if (body_is_static()) return static_body();
    storage.resize(body_max_size());
    return RenderBody(context, storage);
  }

 private:
  // HTTP/1.1: with a static body (body_in_head_), the whole request; else everything up to
  // the Content-Length value, which the rendered body's size follows, then tail_ and body_.
  TextTemplate head_;
  std::string tail_;
  TextTemplate body_;
  std::shared_ptr<const GrpcBodyTemplate> grpc_body_;
  bool grpc_ = false;
  bool body_in_head_ = true;
  TextTemplate path_;
  std::vector<Field> http2_fields_;
  bool has_body_ = false;
  bool is_head_ = false;
  bool uses_fields_ = false;
};

}  // namespace uringload::proto
