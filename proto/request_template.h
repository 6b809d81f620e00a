// RequestTemplate: the request built once per run, rendered per request with the request index
// in place of each {i} of the URL target: as HTTP/1.1 bytes into a connection's buffer, or as
// the header fields and path an HTTP/2 stream sends (Http2ClientSession).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::proto {

// Text with the {i} placeholders of its first part cut out, rendered with an index in place.
class IndexedText {
 public:
  static constexpr std::string_view kPlaceholder = "{i}";
  static constexpr size_t kMaxIndexDigits = 20;  // Digits of UINT64_MAX.

  IndexedText() = default;
  // `text` with each {i} that starts in its first `indexed_size` bytes cut out.
  IndexedText(std::string_view text, size_t indexed_size);

  bool has_index() const { return segment_sizes_.size() > 1; }
  // Bytes of a rendering can never exceed this.
  size_t max_size() const { return bytes_.size() + (segment_sizes_.size() - 1) * kMaxIndexDigits; }
  // The text when !has_index().
  std::string_view fixed() const { return bytes_; }
  // The text for `index`, written at the start of `out` (max_size() bytes suffice). A full
  // copy each time: ~100 bytes, a few ns against the ~5 us the kernel spends per request.
  std::string_view RenderInto(uint64_t index, std::span<char> out) const;

 private:
  std::string bytes_;                        // The text with the placeholders removed.
  std::vector<size_t> segment_sizes_ = {0};  // Sizes of the pieces between placeholders.
};

struct RequestSpec {
  std::string method = "GET";
  std::string scheme = "http";       // HTTP/2's :scheme.
  std::string target = "/";          // May hold {i} placeholders.
  std::string host_header;           // Used unless `headers` sets Host.
  std::vector<std::string> headers;  // "Name: value" lines, validated by Build().
  std::string body;
  bool keep_alive = true;
};

class RequestTemplate {
 public:
  static constexpr std::string_view kIndexPlaceholder = IndexedText::kPlaceholder;
  static constexpr size_t kMaxIndexDigits = IndexedText::kMaxIndexDigits;

  // An HTTP/2 header field (names in lower case, pseudo-headers first).
  struct Field {
    std::string name;
    std::string value;
  };

  // Validates the spec (method token, header syntax, no framing headers) and lays out bytes.
  static absl::StatusOr<RequestTemplate> Build(const RequestSpec& spec);

  bool has_index() const { return request_.has_index(); }
  bool is_head() const { return is_head_; }
  // Bytes of a rendered request can never exceed this.
  size_t max_size() const { return request_.max_size(); }
  // The complete request when !has_index().
  std::string_view static_bytes() const { return request_.fixed(); }
  // The HTTP/1.1 request for `index`, written at the start of `out` (max_size() bytes suffice).
  std::string_view RenderInto(uint64_t index, std::span<char> out) const {
    return request_.RenderInto(index, out);
  }

  // HTTP/2: every header field but :path, the :path (with {i}) and the body.
  std::span<const Field> http2_fields() const { return http2_fields_; }
  const IndexedText& path() const { return path_; }
  std::string_view body() const { return body_; }

 private:
  IndexedText request_;  // HTTP/1.1 bytes; {i} only in the request line's target.
  IndexedText path_;
  std::vector<Field> http2_fields_;
  std::string body_;
  bool is_head_ = false;
};

}  // namespace uringload::proto
