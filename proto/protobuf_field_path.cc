#include "proto/protobuf_field_path.h"

#include <google/protobuf/descriptor.h>

#include <bit>
#include <charconv>
#include <cstring>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "proto/protobuf_wire.h"

namespace uringload::proto {
namespace {

using google::protobuf::FieldDescriptor;

// Reads a varint at `at`, moving it past; nullopt past the end or over 10 bytes.
std::optional<uint64_t> ReadVarint(std::string_view& at) {
  uint64_t value = 0;
  for (int shift = 0; shift < 70 && !at.empty(); shift += 7) {
    auto byte = static_cast<uint8_t>(at.front());
    at.remove_prefix(1);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return std::nullopt;
}

uint64_t ReadLittleEndian(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t k = bytes.size(); k > 0; --k) v = (v << 8) | static_cast<uint8_t>(bytes[k - 1]);
  return v;
}

// One field of a message on the wire: its number and type, and its value's bytes (a varint's
// bytes as they are).
struct WireField {
  uint32_t number = 0;
  uint32_t wire = 0;
  std::string_view value;
};

// The next field at `at`, moving past it; nullopt at the end or on bytes that do not parse
// (groups, which proto3 has not, among them).
std::optional<WireField> NextField(std::string_view& at) {
  std::optional<uint64_t> key = ReadVarint(at);
  if (!key.has_value() || (*key >> 3) == 0 || (*key >> 3) > 0x1fffffff) return std::nullopt;
  WireField f{.number = static_cast<uint32_t>(*key >> 3),
              .wire = static_cast<uint32_t>(*key & 7),
              .value = {}};
  size_t size = 0;
  std::string_view start = at;
  switch (f.wire) {
    case kVarint:
      if (!ReadVarint(at).has_value()) return std::nullopt;
      f.value = start.substr(0, start.size() - at.size());
      return f;
    case kFixed64Wire:
      size = 8;
      break;
    case kFixed32Wire:
      size = 4;
      break;
    case kLengthDelimited: {
      std::optional<uint64_t> length = ReadVarint(at);
      if (!length.has_value()) return std::nullopt;
      size = *length;
      break;
    }
    default:
      return std::nullopt;
  }
  if (size > at.size()) return std::nullopt;
  f.value = at.substr(0, size);
  at.remove_prefix(size);
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
  // absl's string_view is its own here: the texts as std::string for StrCat and StrSplit.
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
  std::string so_far;
  for (absl::string_view raw : absl::StrSplit(absl::string_view(pointer).substr(1), '/')) {
    std::string token = absl::StrReplaceAll(raw, {{"~1", "/"}, {"~0", "~"}});
    absl::StrAppend(&so_far, "/", raw);
    if (wants_index) {
      int64_t index = 0;
      if (!absl::SimpleAtoi(token, &index) || index < 0 || token.empty() ||
          (token.size() > 1 && token[0] == '0')) {
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

int64_t ProtobufFieldPath::Read(std::string_view message, std::span<char> out) const {
  WireField found;
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Step& step = steps_[s];
    bool last = s + 1 == steps_.size();
    bool have = false;
    int64_t seen = 0;  // Elements of a repeated field so far.
    std::string_view at = message;
    while (!at.empty() && !(have && step.index >= 0)) {
      std::optional<WireField> f = NextField(at);
      if (!f.has_value()) return -1;
      if (f->number != step.number) continue;
      if (step.index < 0) {  // A singular field: its last occurrence counts.
        found = *f;
        have = true;
        continue;
      }
      if (!(last && packable_ && f->wire == kLengthDelimited)) {
        if (seen++ == step.index) {
          found = *f;
          have = true;
        }
        continue;
      }
      // Packed: the elements one after the other, each a varint or of a fixed width.
      std::string_view elements = f->value;
      while (!elements.empty() && !have) {
        std::string_view element = elements;
        WireType wire = WireOf(kind_);
        size_t width = wire == kFixed32Wire ? 4 : wire == kFixed64Wire ? 8 : 0;
        if (width == 0) {
          if (!ReadVarint(elements).has_value()) return -1;
          element = element.substr(0, element.size() - elements.size());
        } else {
          if (elements.size() < width) return -1;
          element = elements.substr(0, width);
          elements.remove_prefix(width);
        }
        if (seen++ == step.index) {
          found = {.number = f->number, .wire = wire, .value = element};
          have = true;
        }
      }
    }
    if (!have) return -1;
    if (!last) {
      if (found.wire != kLengthDelimited) return -1;
      message = found.value;
    }
  }
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
    case ProtobufScalar::kSint32: {
      auto n = static_cast<uint32_t>(v);
      return PutNumber(static_cast<int32_t>((n >> 1) ^ (~(n & 1) + 1)), out);
    }
    case ProtobufScalar::kSint64:
      return PutNumber(static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)), out);
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
