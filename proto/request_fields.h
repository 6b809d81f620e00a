// RequestFieldLayout: one HTTP/2 or HTTP/3 request's header fields, in the order both send
// them (pseudo-headers first, :path after :method, :scheme and :authority; a flow's cookie;
// content-length last), with placeholders rendered into one buffer grown to the largest
// request once. nghttp2 and nghttp3 each take the fields as their own name-value pairs.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "proto/request_template.h"

namespace uringload::proto {

struct RequestField {
  std::string_view name;   // Lower case, in the request template for the whole run.
  std::string_view value;  // The template's when `fixed`, else in the layout's buffer.
  bool fixed = false;
};

class RequestFieldLayout {
 public:
  // `request`'s fields for `context`; with `body_size`, a content-length of that size. The
  // fields and their rendered values stay valid until the next call.
  std::span<const RequestField> LayOut(const RequestTemplate& request,
                                       const TemplateContext& context,
                                       std::optional<size_t> body_size);

 private:
  std::vector<RequestField> fields_;
  std::vector<char> rendered_;
};

}  // namespace uringload::proto
