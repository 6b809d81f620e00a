#include "proto/grpc_body_template.h"

#include <bit>
#include <charconv>
#include <cstring>

#include "net/base/check.h"
#include "proto/grpc_message.h"
#include "proto/protobuf_wire.h"

namespace uringload::proto {
namespace {

constexpr size_t kLengthReserve = 5;  // A varint of a length below 2^35.

// Content of `size` bytes was written kLengthReserve bytes after `at`: its length goes at
// `at` and the content moves up behind it. Returns the end.
char* PlaceLength(char* at, size_t size) {
  char length[kLengthReserve];
  size_t length_size = WriteVarint(size, length) - length;
  std::memmove(at + length_size, at + kLengthReserve, size);
  std::memcpy(at, length, length_size);
  return at + length_size + size;
}

}  // namespace

size_t GrpcBodyTemplate::MaxSize(size_t begin, size_t end) const {
  size_t size = 0;
  for (size_t k = begin; k < end; ++k) {
    const Node& node = nodes_[k];
    size += node.bytes_size;
    switch (node.kind) {
      case Kind::kBytes:
        break;
      case Kind::kMessage:
        size += kLengthReserve + MaxSize(k + 1, node.children_end);
        k = node.children_end - 1;
        break;
      case Kind::kScalar:
        switch (WireOf(node.scalar)) {
          case kLengthDelimited:
            size += kLengthReserve + texts_[node.text].max_size();
            break;
          case kFixed32Wire:
            size += 4;
            break;
          case kFixed64Wire:
            size += 8;
            break;
          case kVarint:
            size += 10;  // A varint of 64 bits.
            break;
        }
        break;
    }
  }
  return size;
}

void GrpcBodyTemplate::SetMessages(uint32_t count) {
  URINGLOAD_CHECK(count >= 1 && count <= kMaxMessages, "%u messages", count);
  if (is_static()) {
    std::string one = fixed_.substr(0, fixed_.size() / messages_);
    fixed_.clear();
    for (uint32_t k = 0; k < count; ++k) fixed_ += one;
  }
  messages_ = count;
}

std::string_view GrpcBodyTemplate::RenderInto(const TemplateContext& context,
                                              std::span<char> out) const {
  if (is_static()) {
    std::memcpy(out.data(), fixed_.data(), fixed_.size());
    return std::string_view(out.data(), fixed_.size());
  }
  char* end = Write(0, nodes_.size(), context, out.data() + kGrpcPrefixBytes);
  size_t size = end - out.data();
  WriteGrpcPrefix(static_cast<uint32_t>(size - kGrpcPrefixBytes), out.data());
  for (uint32_t k = 1; k < messages_; ++k) std::memcpy(out.data() + k * size, out.data(), size);
  return std::string_view(out.data(), size * messages_);
}

char* GrpcBodyTemplate::Write(size_t begin, size_t end, const TemplateContext& context,
                              char* out) const {
  for (size_t k = begin; k < end; ++k) {
    const Node& node = nodes_[k];
    std::memcpy(out, bytes_.data() + node.bytes_offset, node.bytes_size);
    out += node.bytes_size;
    if (node.kind == Kind::kBytes) continue;
    if (node.kind == Kind::kMessage) {
      char* content_end = Write(k + 1, node.children_end, context, out + kLengthReserve);
      out = PlaceLength(out, content_end - out - kLengthReserve);
      k = node.children_end - 1;
      continue;
    }
    const TextTemplate& text = texts_[node.text];
    if (node.scalar == ProtobufScalar::kString) {
      std::string_view rendered =
          text.RenderInto(context, std::span<char>(out + kLengthReserve, text.max_size()));
      out = PlaceLength(out, rendered.size());
      continue;
    }
    char digits[TextTemplate::kMaxIntegerDigits + 1];
    std::string_view rendered = text.RenderInto(context, digits);
    // {i} may pass INT64_MAX; the others fit an int64.
    uint64_t bits = 0;
    int64_t value = 0;
    if (rendered.front() == '-') {
      std::from_chars(rendered.data(), rendered.data() + rendered.size(), value);
      bits = static_cast<uint64_t>(value);
    } else {
      std::from_chars(rendered.data(), rendered.data() + rendered.size(), bits);
      value = static_cast<int64_t>(bits);
    }
    switch (node.scalar) {
      case ProtobufScalar::kInt32:  // Negative int32s go out sign-extended, as protobuf writes
                                    // them.
        out = WriteVarint(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(value))),
                          out);
        break;
      case ProtobufScalar::kInt64:
      case ProtobufScalar::kUint64:
        out = WriteVarint(bits, out);
        break;
      case ProtobufScalar::kUint32:
        out = WriteVarint(static_cast<uint32_t>(bits), out);
        break;
      case ProtobufScalar::kSint32: {
        auto n = static_cast<int32_t>(value);
        out = WriteVarint((static_cast<uint32_t>(n) << 1) ^ static_cast<uint32_t>(n >> 31), out);
        break;
      }
      case ProtobufScalar::kSint64:
        out = WriteVarint((static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63),
                          out);
        break;
      case ProtobufScalar::kFixed32:
      case ProtobufScalar::kSfixed32:
        out = WriteLittleEndian(static_cast<uint32_t>(bits), 4, out);
        break;
      case ProtobufScalar::kFixed64:
      case ProtobufScalar::kSfixed64:
        out = WriteLittleEndian(bits, 8, out);
        break;
      case ProtobufScalar::kFloat:
        out = WriteLittleEndian(std::bit_cast<uint32_t>(static_cast<float>(value)), 4, out);
        break;
      case ProtobufScalar::kDouble:
        out = WriteLittleEndian(std::bit_cast<uint64_t>(static_cast<double>(value)), 8, out);
        break;
      default:  // Strings are written above; bool, enum and bytes take no placeholder.
        break;
    }
  }
  return out;
}

}  // namespace uringload::proto