#include "proto/protobuf_field_path.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <bit>
#include <charconv>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "net/base/status_macros.h"
#include "proto/json_pointer.h"
#include "proto/protobuf_wire.h"

namespace uringload::proto {
namespace {

using google::protobuf::FieldDescriptor;

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

CodedInputStream Reader(std::string_view bytes) {
  return CodedInputStream(reinterpret_cast<const uint8_t*>(bytes.data()),
                          static_cast<int>(bytes.size()));
}

// The varint at the start of `at`, which it moves past; nullopt when there is none.
std::optional<uint64_t> ReadVarint(std::string_view& at) {
  CodedInputStream in = Reader(at);
  uint64_t value = 0;
  if (!in.ReadVarint64(&value)) return std::nullopt;
  at.remove_prefix(in.CurrentPosition());
  return value;
}

// A fixed-width value's 4 or 8 bytes, little-endian.
uint64_t ReadLittleEndian(std::string_view bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  if (bytes.size() == 4) {
    uint32_t v = 0;
    CodedInputStream::ReadLittleEndian32FromArray(data, &v);
    return v;
  }
  uint64_t v = 0;
  CodedInputStream::ReadLittleEndian64FromArray(data, &v);
  return v;
}

// The next field at `at`, moving past it; nullopt at the end or on bytes that do not parse. A
// group (proto2's; a proto3 reader meets one as an unknown field) is skipped whole, nested
// ones too, as libprotobuf skips it.
std::optional<ProtobufFieldPath::WireField> NextField(std::string_view& at) {
  CodedInputStream in = Reader(at);
  uint32_t tag = in.ReadTag();
  if (WireFormatLite::GetTagFieldNumber(tag) == 0) return std::nullopt;  // The end, or no tag.
  ProtobufFieldPath::WireField f{
      .number = static_cast<uint32_t>(WireFormatLite::GetTagFieldNumber(tag)),
      .wire = static_cast<uint32_t>(WireFormatLite::GetTagWireType(tag)),
      .value = {}};
  int start = in.CurrentPosition();
  uint32_t size = 0;
  switch (f.wire) {
    case WireFormatLite::WIRETYPE_VARINT: {
      uint64_t ignored = 0;
      if (!in.ReadVarint64(&ignored)) return std::nullopt;
      size = static_cast<uint32_t>(in.CurrentPosition() - start);
      break;
    }
    case WireFormatLite::WIRETYPE_FIXED64:
      size = 8;
      break;
    case WireFormatLite::WIRETYPE_FIXED32:
      size = 4;
      break;
    case WireFormatLite::WIRETYPE_LENGTH_DELIMITED:
      if (!in.ReadVarint32(&size)) return std::nullopt;
      start = in.CurrentPosition();
      break;
    case WireFormatLite::WIRETYPE_START_GROUP:
      if (!WireFormatLite::SkipField(&in, tag)) return std::nullopt;
      size = static_cast<uint32_t>(in.CurrentPosition() - start);
      break;
    default:
      return std::nullopt;
  }
  if (size > at.size() - static_cast<size_t>(start)) return std::nullopt;
  f.value = at.substr(start, size);
  at.remove_prefix(start + size);
  return f;
}

// Writes `text` into `out`: its size, or out.size() + 1 when it does not fit.
int64_t Put(std::string_view text, std::span<char> out) {
  if (text.size() > out.size()) return static_cast<int64_t>(out.size()) + 1;
  std::memcpy(out.data(), text.data(), text.size());
  return static_cast<int64_t>(text.size());
}

template <typename T>
int64_t PutNumber(T value, std::span<char> out) {
  char digits[32];
  char* end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
  return Put(std::string_view(digits, end - digits), out);
}

int64_t PutBase64(std::string_view bytes, std::span<char> out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t size = (bytes.size() + 2) / 3 * 4;
  if (size > out.size()) return static_cast<int64_t>(out.size()) + 1;
  char* o = out.data();
  for (size_t k = 0; k < bytes.size(); k += 3) {
    uint32_t n = static_cast<uint8_t>(bytes[k]) << 16;
    if (k + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[k + 1]) << 8;
    if (k + 2 < bytes.size()) n |= static_cast<uint8_t>(bytes[k + 2]);
    *o++ = kAlphabet[(n >> 18) & 63];
    *o++ = kAlphabet[(n >> 12) & 63];
    *o++ = k + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    *o++ = k + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return static_cast<int64_t>(size);
}

}  // namespace

absl::StatusOr<ProtobufFieldPath> ProtobufFieldPath::Compile(const GrpcSchema& schema,
                                                             std::string_view type_name,
                                                             std::string_view pointer_text) {
  // absl's string_view is its own here: the texts as std::string for StrCat.
  const std::string type(type_name);
  const std::string pointer(pointer_text);
  const google::protobuf::Descriptor* message = schema.MessageType(type);
  if (message == nullptr) return absl::InvalidArgumentError(absl::StrCat("no message ", type));
  if (pointer.empty() || pointer.front() != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("'", pointer, "': a path into ", type, " names a field: /name"));
  }
  ProtobufFieldPath path;
  const FieldDescriptor* field = nullptr;
  bool wants_index = false;
  URINGLOAD_ASSIGN_OR_RETURN(std::vector<std::string> tokens, ParseJsonPointer(pointer));
  for (const std::string& token : tokens) {
    if (wants_index) {
      int64_t index = JsonPointerIndex(token);
      if (index < 0) {
        return absl::InvalidArgumentError(absl::StrCat("'", pointer, "': ", field->name(),
                                                       " is repeated: an index follows it, not '",
                                                       token, "'"));
      }
      path.steps_.back().index = index;
      wants_index = false;
      continue;
    }
    if (field != nullptr) {
      if (field->type() != FieldDescriptor::TYPE_MESSAGE) {
        return absl::InvalidArgumentError(absl::StrCat("'", pointer, "': ", field->name(),
                                                       " is not a message: nothing is below it"));
      }
      message = field->message_type();
    }
    field = message->FindFieldByName(token);
    for (int k = 0; field == nullptr && k < message->field_count(); ++k) {
      if (message->field(k)->json_name() == token) field = message->field(k);
    }
    if (field == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", pointer, "': ", message->full_name(), " has no field '", token, "'"));
    }
    if (field->is_map()) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", pointer, "': ", field->name(), " is a map: a path cannot enter it"));
    }
    if (path.steps_.size() == kMaxSteps) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", pointer, "': a path goes at most ", kMaxSteps, " fields deep"));
    }
    path.steps_.push_back({.number = static_cast<uint32_t>(field->number())});
    wants_index = field->is_repeated();
  }
  if (wants_index) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", pointer, "': ", field->name(), " is repeated: add an index (/0)"));
  }
  std::optional<ProtobufScalar> scalar = ScalarOf(*field);
  if (!scalar.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", pointer, "': ", field->name(), " is a message: name one of its fields"));
  }
  path.kind_ = *scalar;
  path.packable_ = field->is_repeated() && WireOf(path.kind_) != kLengthDelimited;
  if (path.kind_ == ProtobufScalar::kEnum) {
    const google::protobuf::EnumDescriptor* e = field->enum_type();
    for (int k = 0; k < e->value_count(); ++k) {
      path.enum_values_.push_back({e->value(k)->number(), e->value(k)->name()});
    }
  }
  return path;
}

// Step `s` of the path over `chunk`, one occurrence of the message it is in, as libprotobuf
// reads it: a field whose wire type is not its type's is unknown to it, so skipped; the
// occurrences of a singular message merge into one, so each is searched, in order; a
// singular value's last occurrence wins; a repeated field's elements, packed or not, are
// counted over every occurrence of the message that holds them. False on bytes that do not
// parse.
bool ProtobufFieldPath::Visit(std::string_view chunk, size_t s, Search& search) const {
  const Step& step = steps_[s];
  bool last = s + 1 == steps_.size();
  while (!chunk.empty()) {
    std::optional<WireField> f = NextField(chunk);
    if (!f.has_value()) return false;
    if (f->number != step.number) continue;
    if (!last) {
      if (f->wire != kLengthDelimited) continue;
      bool wanted = step.index < 0 || search.seen[s]++ == step.index;
      if (wanted && !Visit(f->value, s + 1, search)) return false;
      continue;
    }
    bool packed = packable_ && f->wire == kLengthDelimited;
    if (f->wire != WireOf(kind_) && !packed) continue;
    if (!packed) {
      if (step.index < 0 || search.seen[s]++ == step.index) search.found = f;
      continue;
    }
    // Packed: the elements one after the other, each a varint or of a fixed width.
    std::string_view elements = f->value;
    WireType wire = WireOf(kind_);
    size_t width = wire == kFixed32Wire ? 4 : wire == kFixed64Wire ? 8 : 0;
    while (!elements.empty()) {
      std::string_view element = elements;
      if (width == 0) {
        if (!ReadVarint(elements).has_value()) return false;
        element = element.substr(0, element.size() - elements.size());
      } else {
        if (elements.size() < width) return false;
        element = elements.substr(0, width);
        elements.remove_prefix(width);
      }
      if (search.seen[s]++ == step.index) {
        search.found = WireField{.number = f->number, .wire = wire, .value = element};
      }
    }
  }
  return true;
}

int64_t ProtobufFieldPath::Read(std::string_view message, std::span<char> out) const {
  Search search;
  if (!Visit(message, 0, search) || !search.found.has_value()) return -1;
  const WireField& found = *search.found;
  // The value, checked against its type's wire type.
  std::string_view value = found.value;
  if (found.wire != WireOf(kind_)) return -1;
  if (found.wire == kLengthDelimited) {
    return kind_ == ProtobufScalar::kBytes ? PutBase64(value, out) : Put(value, out);
  }
  uint64_t v = found.wire == kVarint ? *ReadVarint(value) : ReadLittleEndian(value);
  switch (kind_) {
    case ProtobufScalar::kInt32:
    case ProtobufScalar::kSfixed32:
      return PutNumber(static_cast<int32_t>(v), out);
    case ProtobufScalar::kInt64:
    case ProtobufScalar::kSfixed64:
      return PutNumber(static_cast<int64_t>(v), out);
    case ProtobufScalar::kUint32:
    case ProtobufScalar::kFixed32:
      return PutNumber(static_cast<uint32_t>(v), out);
    case ProtobufScalar::kUint64:
    case ProtobufScalar::kFixed64:
      return PutNumber(v, out);
    case ProtobufScalar::kSint32:
      return PutNumber(WireFormatLite::ZigZagDecode32(static_cast<uint32_t>(v)), out);
    case ProtobufScalar::kSint64:
      return PutNumber(WireFormatLite::ZigZagDecode64(v), out);
    case ProtobufScalar::kBool:
      return Put(v != 0 ? "true" : "false", out);
    case ProtobufScalar::kEnum:
      for (const auto& [number, name] : enum_values_) {
        if (number == static_cast<int32_t>(v)) return Put(name, out);
      }
      return PutNumber(static_cast<int32_t>(v), out);  // A number this schema does not name.
    case ProtobufScalar::kFloat:
      return PutNumber(std::bit_cast<float>(static_cast<uint32_t>(v)), out);
    case ProtobufScalar::kDouble:
      return PutNumber(std::bit_cast<double>(v), out);
    default:  // kString and kBytes: returned above.
      return -1;
  }
}

}  // namespace uringload::proto
