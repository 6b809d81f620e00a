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
  std::string head = absl::StrCat(spec.method, " ", spec.target, " HTTP/1.1\r\n");
  if (!HasHeader(headers, "host")) absl::StrAppend(&head, "Host: ", spec.host_header, "\r\n");
  if (!HasHeader(headers, "user-agent")) absl::StrAppend(&head, "User-Agent: uringload/0.1\r\n");
  if (!HasHeader(headers, "accept")) absl::StrAppend(&head, "Accept: */*\r\n");
  for (const Header& h : headers) absl::StrAppend(&head, h.name, ": ", h.value, "\r\n");
  if (!spec.body.empty() || spec.method == "POST" || spec.method == "PUT") {
    absl::StrAppend(&head, "Content-Length: ", spec.body.size(), "\r\n");
  }
  if (!spec.keep_alive) absl::StrAppend(&head, "Connection: close\r\n");
  absl::StrAppend(&head, "\r\n", spec.body);

  // Cut out the placeholders (only in the request line's target) and remember the pieces.
  RequestTemplate tmpl;
  tmpl.is_head_ = spec.method == "HEAD";
  size_t target_end = spec.method.size() + 1 + spec.target.size();
  size_t pos = 0;
  std::vector<size_t> cut_points;  // Offsets into bytes_ where an index goes.
  while (true) {
    size_t found = head.find(kIndexPlaceholder, pos);
    if (found == std::string::npos || found >= target_end) break;
    cut_points.push_back(tmpl.bytes_.size() + (found - pos));
    tmpl.bytes_.append(head, pos, found - pos);
    pos = found + kIndexPlaceholder.size();
  }
  tmpl.bytes_.append(head, pos, std::string::npos);
  tmpl.fixed_size_ = tmpl.bytes_.size();
  size_t start = 0;
  for (size_t cut : cut_points) {
    tmpl.segment_sizes_.push_back(cut - start);
    start = cut;
  }
  tmpl.segment_sizes_.push_back(tmpl.bytes_.size() - start);
  return tmpl;
}

std::string_view RequestTemplate::RenderInto(uint64_t index, std::span<char> out) const {
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

}  // namespace uringload::proto
