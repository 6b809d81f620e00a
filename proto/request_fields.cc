#include "proto/request_fields.h"

#include <charconv>

namespace uringload::proto {

std::span<const RequestField> RequestFieldLayout::LayOut(const RequestTemplate& request,
                                                         const TemplateContext& context,
                                                         std::optional<size_t> body_size) {
  std::span<const RequestTemplate::Field> fields = request.http2_fields();
  size_t room = request.path().max_size() + TextTemplate::kMaxIntegerDigits;
  for (const RequestTemplate::Field& f : fields) room += f.value.max_size();
  if (context.writer != nullptr) room += context.writer->max_size();
  if (rendered_.size() < room) rendered_.resize(room);
  size_t used = 0;
  auto field = [&](std::string_view name, const TextTemplate& t) {
    if (t.is_static()) return RequestField{name, t.fixed(), true};
    std::string_view value = t.RenderInto(context, std::span(rendered_).subspan(used));
    used += value.size();
    return RequestField{name, value, false};
  };
  fields_.clear();
  for (const RequestTemplate::Field& f : fields) fields_.push_back(field(f.name, f.value));
  fields_.insert(fields_.begin() + 3, field(":path", request.path()));
  if (context.writer != nullptr) {  // "Cookie: a=1; b=2\r\n" becomes the field a=1; b=2.
    size_t size = context.writer->Write(std::span(rendered_).subspan(used));
    constexpr std::string_view kName = "Cookie: ";
    if (size > kName.size() + 2) {
      fields_.push_back({"cookie", std::string_view(rendered_.data() + used + kName.size(),
                                                    size - kName.size() - 2)});
      used += size;
    }
  }
  if (body_size.has_value()) {
    char* digits = rendered_.data() + used;
    size_t size =
        std::to_chars(digits, digits + TextTemplate::kMaxIntegerDigits, *body_size).ptr - digits;
    fields_.push_back({"content-length", std::string_view(digits, size)});
  }
  return fields_;
}

}  // namespace uringload::proto
