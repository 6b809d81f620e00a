// RequestTemplate: the request bytes built once per run, rendered per request into a
// connection's buffer with the request index in place of each {i} of the URL target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::proto {

struct RequestSpec {
  std::string method = "GET";
  std::string target = "/";          // May hold {i} placeholders.
  std::string host_header;           // Used unless `headers` sets Host.
  std::vector<std::string> headers;  // "Name: value" lines, validated by Build().
  std::string body;
  bool keep_alive = true;
};

class RequestTemplate {
 public:
  static constexpr std::string_view kIndexPlaceholder = "{i}";
  static constexpr size_t kMaxIndexDigits = 20;  // Digits of UINT64_MAX.

  // Validates the spec (method token, header syntax, no framing headers) and lays out bytes.
  static absl::StatusOr<RequestTemplate> Build(const RequestSpec& spec);

  bool has_index() const { return segment_sizes_.size() > 1; }
  bool is_head() const { return is_head_; }
  // Bytes of a rendered request can never exceed this.
  size_t max_size() const { return fixed_size_ + (segment_sizes_.size() - 1) * kMaxIndexDigits; }
  // The complete request when !has_index().
  std::string_view static_bytes() const { return bytes_; }
  // The request for `index`, written at the start of `out` (max_size() bytes suffice). A
  // full copy each time: ~100 bytes, a few ns against the ~5 us the kernel spends per request.
  std::string_view RenderInto(uint64_t index, std::span<char> out) const;

 private:
  std::string bytes_;                  // The request with the placeholders removed.
  std::vector<size_t> segment_sizes_;  // Sizes of the pieces of bytes_ between placeholders.
  size_t fixed_size_ = 0;
  bool is_head_ = false;
};

}  // namespace uringload::proto
