// RequestTemplate: the request bytes built once per run; RenderedRequest: a connection's copy
// in which only the digits of the request index ({i} in the URL target) change per request.
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

 private:
  friend class RenderedRequest;
  std::string bytes_;                  // The request with the placeholders removed.
  std::vector<size_t> segment_sizes_;  // Sizes of the pieces of bytes_ between placeholders.
  size_t fixed_size_ = 0;
  bool is_head_ = false;
};

// One connection's request buffer. Render() rewrites only the index digits when their count
// is unchanged since the last call (the common case), and re-lays the whole buffer otherwise.
class RenderedRequest {
 public:
  RenderedRequest() = default;
  // `storage` must hold tmpl.max_size() bytes when tmpl.has_index(), and outlive this object.
  RenderedRequest(const RequestTemplate* tmpl, std::span<char> storage)
      : template_(tmpl), storage_(storage) {}

  std::string_view Render(uint64_t index);

 private:
  void Relayout(std::string_view digits);

  const RequestTemplate* template_ = nullptr;
  std::span<char> storage_;
  size_t width_ = 0;  // Digits in the current layout; 0 = not laid out yet.
  size_t size_ = 0;
};

}  // namespace uringload::proto
