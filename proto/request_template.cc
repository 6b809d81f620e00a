#include "proto/request_template.h"

#include <charconv>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

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

}  // namespace

IndexedText::IndexedText(std::string_view text, size_t indexed_size) {
  segment_sizes_.clear();
  size_t pos = 0;
  size_t segment_start = 0;
  while (true) {
    size_t found = text.find(kPlaceholder, pos);
    if (found == std::string_view::npos || found >= indexed_size) break;
    bytes_.append(text.substr(pos, found - pos));
    segment_sizes_.push_back(bytes_.size() - segment_start);
    segment_start = bytes_.size();
    pos = found + kPlaceholder.size();
  }
  bytes_.append(text.substr(pos));
  segment_sizes_.push_back(bytes_.size() - segment_start);
}

std::string_view IndexedText::RenderInto(uint64_t index, std::span<char> out) const {
  char digits[kMaxIndexDigits];
  size_t width =
      has_index() ? std::to_chars(digits, digits + sizeof(digits), index).ptr - digits : 0;
  size_t offset = 0;
  const char* source = bytes_.data();
  for (size_t k = 0; k < segment_sizes_.size(); ++k) {
    if (k > 0) {
      std::memcpy(out.data() + offset, digits, width);
      offset += width;
    }
    std::memcpy(out.data() + offset, source, segment_sizes_[k]);
    source += segment_sizes_[k];
    offset += segment_sizes_[k];
  }
  return std::string_view(out.data(), offset);
}

absl::StatusOr<RequestTemplate> RequestTemplate::Build(const RequestSpec& spec) {
  if (!IsToken(spec.method)) {
    return absl::InvalidArgumentError(absl::StrCat("invalid method '", spec.method, "'"));
  }
  std::vector<Header> headers;
  for (const std::string& line : spec.headers) {
    absl::StatusOr<Header> header = ParseHeader(line);
    if (!header.ok()) return header.status();
    headers.push_back(*header);
  }
  bool has_body = !spec.body.empty() || spec.method == "POST" || spec.method == "PUT";
  std::string head = absl::StrCat(spec.method, " ", spec.target, " HTTP/1.1\r\n");
  if (!HasHeader(headers, "host")) absl::StrAppend(&head, "Host: ", spec.host_header, "\r\n");
  if (!HasHeader(headers, "user-agent")) absl::StrAppend(&head, "User-Agent: uringload/0.1\r\n");
  if (!HasHeader(headers, "accept")) absl::StrAppend(&head, "Accept: */*\r\n");
  for (const Header& h : headers) absl::StrAppend(&head, h.name, ": ", h.value, "\r\n");
  if (has_body) absl::StrAppend(&head, "Content-Length: ", spec.body.size(), "\r\n");
  if (!spec.keep_alive) absl::StrAppend(&head, "Connection: close\r\n");
  absl::StrAppend(&head, "\r\n", spec.body);

  RequestTemplate tmpl;
  tmpl.is_head_ = spec.method == "HEAD";
  tmpl.request_ = IndexedText(head, spec.method.size() + 1 + spec.target.size());
  tmpl.path_ = IndexedText(spec.target, spec.target.size());
  tmpl.body_ = spec.body;
  // HTTP/2 (RFC 9113 8.3.1): Host becomes :authority; names go in lower case.
  std::string authority = spec.host_header;
  for (const Header& h : headers) {
    if (absl::EqualsIgnoreCase(h.name, "host")) authority = std::string(h.value);
  }
  std::vector<Field>& fields = tmpl.http2_fields_;
  fields = {{":method", spec.method}, {":scheme", spec.scheme}, {":authority", authority}};
  if (!HasHeader(headers, "user-agent")) fields.push_back({"user-agent", "uringload/0.1"});
  if (!HasHeader(headers, "accept")) fields.push_back({"accept", "*/*"});
  for (const Header& h : headers) {
    if (absl::EqualsIgnoreCase(h.name, "host")) continue;
    fields.push_back({absl::AsciiStrToLower(h.name), std::string(h.value)});
  }
  if (has_body) fields.push_back({"content-length", absl::StrCat(spec.body.size())});
  return tmpl;
}

}  // namespace uringload::proto
