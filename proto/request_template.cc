#include "proto/request_template.h"

#include <charconv>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "net/base/absl_view.h"
#include "net/base/status_macros.h"

namespace uringload::proto {
namespace {

// RFC 9110 token characters.
bool IsTokenChar(char c) {
  return absl::ascii_isalnum(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

struct Header {
  absl::string_view name;
  absl::string_view value;
};

absl::StatusOr<Header> ParseHeader(absl::string_view line) {
  size_t colon = line.find(':');
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid header '", line, "': expected 'Name: value'"));
  }
  Header header{line.substr(0, colon), absl::StripAsciiWhitespace(line.substr(colon + 1))};
  if (!IsToken(header.name)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid header name in '", line, "'"));
  }
  for (char c : header.value) {
    if (c == '\r' || c == '\n' || c == '\0') {
      return absl::InvalidArgumentError(
          absl::StrCat("header '", header.name, "' has a control character in its value"));
    }
  }
  for (absl::string_view framing : {"content-length", "transfer-encoding", "connection"}) {
    if (absl::EqualsIgnoreCase(header.name, framing)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "header '", header.name,
          "' is set by uringload (use --body/--body-file and --no-keepalive instead)"));
    }
  }
  return header;
}

bool HasHeader(const std::vector<Header>& headers, absl::string_view name) {
  for (const Header& h : headers) {
    if (absl::EqualsIgnoreCase(h.name, name)) return true;
  }
  return false;
}

// `text` compiled, or the error with the part it is in.
absl::StatusOr<TextTemplate> CompilePart(absl::string_view part, absl::string_view text,
                                         TemplateColumns columns, uint32_t stream) {
  absl::StatusOr<TextTemplate> t =
      TextTemplate::Compile(std::string_view(text.data(), text.size()), columns, stream);
  if (!t.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(part, ": ", t.status().message()));
  }
  return t;
}

// Random values of the target, of header k, of the body and of the extra lines come from streams
// 0, k + 1 and these.
constexpr uint32_t kBodyStream = 0xffff;
constexpr uint32_t kExtraLinesStream = 0xfffe;

}  // namespace

absl::StatusOr<RequestTemplate> RequestTemplate::Build(const RequestSpec& spec,
                                                       TemplateColumns columns) {
  if (!IsToken(spec.method)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid method '", spec.method, "'"));
  }
  std::vector<Header> headers;
  for (const std::string& line : spec.headers) {
    URINGLOAD_ASSIGN_OR_RETURN(Header header, ParseHeader(line));
    headers.push_back(header);
  }
  RequestTemplate tmpl;
  URINGLOAD_ASSIGN_OR_RETURN(
      TextTemplate path,
      CompilePart(absl::StrCat("URL path '", spec.target, "'"), spec.target, columns, 0));
  tmpl.path_ = std::move(path);
  std::vector<TextTemplate> values;
  for (size_t k = 0; k < headers.size(); ++k) {
    URINGLOAD_ASSIGN_OR_RETURN(
        TextTemplate value, CompilePart(absl::StrCat("header '", headers[k].name, "'"),
                                        headers[k].value, columns, static_cast<uint32_t>(k + 1)));
    values.push_back(std::move(value));
  }
  if (spec.body_is_template) {
    URINGLOAD_ASSIGN_OR_RETURN(TextTemplate body,
                               CompilePart(spec.body_name, spec.body, columns, kBodyStream));
    tmpl.body_ = std::move(body);
  } else {
    tmpl.body_ = TextTemplate::Literal(spec.body);
  }
  tmpl.grpc_body_ = spec.grpc_body;
  tmpl.grpc_ = spec.grpc || spec.grpc_body != nullptr;
  tmpl.has_body_ = !spec.body.empty() || spec.method == "POST" || spec.method == "PUT" ||
                   tmpl.grpc_body_ != nullptr;
  tmpl.is_head_ = spec.method == "HEAD";
  tmpl.uses_fields_ = tmpl.path_.uses_fields() || tmpl.body_.uses_fields() ||
                      (tmpl.grpc_body_ != nullptr && tmpl.grpc_body_->uses_fields());

  TextTemplate& head = tmpl.head_;
  head.AppendLiteral(absl::StrCat(spec.method, " "));
  head.Append(tmpl.path_);
  std::string fixed = " HTTP/1.1\r\n";
  if (!HasHeader(headers, "host")) absl::StrAppend(&fixed, "Host: ", spec.host_header, "\r\n");
  if (!HasHeader(headers, "user-agent")) absl::StrAppend(&fixed, "User-Agent: uringload/0.1\r\n");
  if (!HasHeader(headers, "accept")) absl::StrAppend(&fixed, "Accept: */*\r\n");
  head.AppendLiteral(fixed);
  for (size_t k = 0; k < headers.size(); ++k) {
    head.AppendLiteral(absl::StrCat(headers[k].name, ": "));
    head.Append(values[k]);
    head.AppendLiteral("\r\n");
    tmpl.uses_fields_ = tmpl.uses_fields_ || values[k].uses_fields();
  }
  if (!spec.extra_lines.empty()) {
    URINGLOAD_ASSIGN_OR_RETURN(
        TextTemplate extra,
        CompilePart("extra header lines", spec.extra_lines, columns, kExtraLinesStream));
    head.Append(extra);
    tmpl.uses_fields_ = tmpl.uses_fields_ || extra.uses_fields();
  }
  // What follows the Content-Length value.
  std::string tail = spec.keep_alive ? "\r\n\r\n" : "\r\nConnection: close\r\n\r\n";
  if (!tmpl.has_body_) {
    head.AppendLiteral(tail.substr(2));
  } else if (tmpl.body_is_static()) {
    std::string_view body = tmpl.static_body();
    head.AppendLiteral(absl::StrCat("Content-Length: ", body.size(), tail, AbslView(body)));
  } else {
    head.AppendLiteral("Content-Length: ");
    tmpl.tail_ = tail;
    tmpl.body_in_head_ = false;
  }

  // HTTP/2 (RFC 9113 8.3.1): Host becomes :authority; names go in lower case.
  TextTemplate authority = TextTemplate::Literal(spec.host_header);
  for (size_t k = 0; k < headers.size(); ++k) {
    if (absl::EqualsIgnoreCase(headers[k].name, "host")) authority = values[k];
  }
  std::vector<Field>& fields = tmpl.http2_fields_;
  fields.push_back({":method", TextTemplate::Literal(spec.method)});
  fields.push_back({":scheme", TextTemplate::Literal(spec.scheme)});
  fields.push_back({":authority", authority});
  if (!HasHeader(headers, "user-agent")) {
    fields.push_back({"user-agent", TextTemplate::Literal("uringload/0.1")});
  }
  if (!HasHeader(headers, "accept")) fields.push_back({"accept", TextTemplate::Literal("*/*")});
  for (size_t k = 0; k < headers.size(); ++k) {
    if (absl::EqualsIgnoreCase(headers[k].name, "host")) continue;
    fields.push_back({absl::AsciiStrToLower(headers[k].name), values[k]});
  }
  return tmpl;
}

std::string_view RequestTemplate::RenderInto(const TemplateContext& context,
                                             std::span<char> out) const {
  if (body_in_head_) return head_.RenderInto(context, out);
  // The body first, at the end of the room a request can need; then the head before it, the
  // body's size, and the body moved up behind them.
  size_t body_at = max_size() - body_max_size();
  std::string_view body = RenderBody(context, out.subspan(body_at));
  size_t size = head_.RenderInto(context, out).size();
  char* p = std::to_chars(out.data() + size, out.data() + body_at, body.size()).ptr;
  std::memcpy(p, tail_.data(), tail_.size());
  p += tail_.size();
  std::memmove(p, body.data(), body.size());
  return std::string_view(out.data(), p + body.size() - out.data());
}

}  // namespace uringload::proto
