// GrpcBodyTemplate's layout (Build): the template's placeholders found and checked, its JSON
// checked by libprotobuf, then its fields laid out as the plan grpc_body_template.cc renders.
#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "net/base/status_macros.h"
#include "proto/grpc_body_template.h"
#include "proto/grpc_message.h"
#include "proto/protobuf_scalar.h"
#include "proto/protobuf_wire.h"

namespace uringload::proto {

namespace pb = google::protobuf;
using Json = nlohmann::ordered_json;

namespace {

// A placeholder stands in the JSON given to nlohmann as \u0001 K \u0001 (K its index): a
// byte no JSON text holds unescaped, so a string value splits back into literals and
// placeholders.
constexpr char kMarker = '\x01';
// Whether a placeholder is in `value`: in a string, an object's key or deeper.
bool HasMarker(const Json& value) {
  if (value.is_string()) {
    return value.get_ref<const std::string&>().find(kMarker) != std::string::npos;
  }
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key().find(kMarker) != std::string::npos || HasMarker(it.value())) return true;
    }
  }
  if (value.is_array()) {
    for (const Json& item : value) {
      if (HasMarker(item)) return true;
    }
  }
  return false;
}

const pb::FieldDescriptor* FindField(const pb::Descriptor& type, const std::string& key) {
  if (const pb::FieldDescriptor* field = type.FindFieldByName(key)) return field;
  for (int k = 0; k < type.field_count(); ++k) {
    if (type.field(k)->json_name() == key) return type.field(k);
  }
  return nullptr;
}

}  // namespace

// Lays the plan out from the JSON with markers, checking each placeholder's field.
class GrpcBodyTemplate::Planner {
 public:
  Planner(const GrpcSchema& schema, std::string_view json, std::string_view source,
          TemplateColumns columns, std::vector<Placeholder> placeholders, GrpcBodyTemplate& out)
      : schema_(schema),
        json_(json),
        source_(source),
        columns_(columns),
        placeholders_(std::move(placeholders)),
        out_(out) {}

  absl::Status Message(const pb::Descriptor& type, const Json& object) {
    for (auto it = object.begin(); it != object.end(); ++it) {
      const pb::FieldDescriptor* field = FindField(type, it.key());
      if (field == nullptr) return absl::InternalError("a field the type does not have");
      if (!HasMarker(it.value())) {
        absl::Status s = Fixed(type, it.key(), it.value());
        if (!s.ok()) return s;
        continue;
      }
      if (field->is_map()) return Unfillable(it.value(), *field, "a map's values");
      if (!field->is_repeated()) {
        absl::Status s = Value(*field, it.value());
        if (!s.ok()) return s;
        continue;
      }
      for (const Json& item : it.value()) {
        absl::Status s =
            HasMarker(item) ? Value(*field, item) : Fixed(type, it.key(), Json::array({item}));
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

 private:
  // A field without placeholders: libprotobuf encodes it alone in a message of its type.
  absl::Status Fixed(const pb::Descriptor& type, const std::string& key, const Json& value) {
    Json one = Json::object();
    one[key] = value;
    absl::StatusOr<std::string> wire = schema_.EncodeJson(type.full_name(), one.dump());
    // The whole message passed the same check: only a template whose sample failed it, being
    // checked for what is wrong with its placeholders, gets here.
    if (!wire.ok()) return absl::InternalError(wire.status().message());
    // Joins the last node only when it is of this message: not one a nested message ended
    // with, whose length must not count it.
    if (out_.nodes_.size() > join_floor_ && out_.nodes_.back().kind == Kind::kBytes &&
        out_.nodes_.back().bytes_offset + out_.nodes_.back().bytes_size == out_.bytes_.size()) {
      out_.nodes_.back().bytes_size += static_cast<uint32_t>(wire->size());  // Joins the last.
    } else {
      out_.nodes_.push_back({.kind = Kind::kBytes,
                             .bytes_offset = static_cast<uint32_t>(out_.bytes_.size()),
                             .bytes_size = static_cast<uint32_t>(wire->size())});
    }
    out_.bytes_ += *wire;
    return absl::OkStatus();
  }

  // One value with placeholders of `field` (an element, if repeated).
  absl::Status Value(const pb::FieldDescriptor& field, const Json& value) {
    if (field.type() == pb::FieldDescriptor::TYPE_MESSAGE) {
      const pb::Descriptor& type = *field.message_type();
      if (type.file()->package() == "google.protobuf") {
        return Unfillable(value, field, absl::StrCat(type.full_name(), "'s JSON form"));
      }
      if (!value.is_object()) return absl::InternalError("a message that is no JSON object");
      size_t at = AddNode(Kind::kMessage, field, kLengthDelimited);
      absl::Status s = Message(type, value);
      out_.nodes_[at].children_end = static_cast<uint32_t>(out_.nodes_.size());
      join_floor_ = out_.nodes_.size();  // What follows is outside it.
      return s;
    }
    if (!value.is_string()) return absl::InternalError("a marker that is not a string");
    const std::string& text = value.get_ref<const std::string&>();
    ProtobufScalar scalar = *ScalarOf(field);  // Not a message: above.
    if (scalar == ProtobufScalar::kString) {
      // The literals between placeholders written back as template text.
      std::string rebuilt;
      for (size_t k = 0; k < text.size();) {
        size_t marker = text.find(kMarker, k);
        if (marker == std::string::npos) marker = text.size();
        rebuilt += TextTemplate::Escape(std::string_view(text).substr(k, marker - k));
        if (marker == text.size()) break;
        size_t close = text.find(kMarker, marker + 1);
        rebuilt += placeholders_[std::stoul(text.substr(marker + 1, close - marker - 1))].text;
        k = close + 1;
      }
      return AddText(scalar, field, rebuilt);
    }
    if (scalar == ProtobufScalar::kBool || scalar == ProtobufScalar::kEnum ||
        scalar == ProtobufScalar::kBytes) {
      return Unfillable(value, field, absl::StrCat("a field of type ", field.type_name()));
    }
    // A number: the value is one placeholder, whole.
    const Placeholder* placeholder = nullptr;
    if (text.size() >= 3 && text.front() == kMarker && text.back() == kMarker &&
        std::count(text.begin(), text.end(), kMarker) == 2) {
      placeholder = &placeholders_[std::stoul(text.substr(1, text.size() - 2))];
    }
    if (placeholder == nullptr || !placeholder->integer) {
      return absl::InvalidArgumentError(absl::StrCat(
          source_, " ", TextPosition(json_, FirstPlaceholder(value).at), ": field '", field.name(),
          "' is a ", field.type_name(),
          ": a placeholder fills it only whole, and only with {i}, {rand:LO-HI}, {shard} or "
          "{worker}"));
    }
    if (IsUnsigned(scalar) && placeholder->negative) {
      return absl::InvalidArgumentError(absl::StrCat(
          source_, " ", TextPosition(json_, placeholder->at), ": field '", field.name(), "' is a ",
          field.type_name(), ": ", placeholder->text, " may be negative"));
    }
    return AddText(scalar, field, placeholder->text);
  }

  absl::Status AddText(ProtobufScalar scalar, const pb::FieldDescriptor& field,
                       const std::string& text) {
    // Each text its own random stream: two {rand} of one body are two values.
    URINGLOAD_ASSIGN_OR_RETURN(
        TextTemplate compiled,
        TextTemplate::Compile(text, columns_,
                              kFirstStream + static_cast<uint32_t>(out_.texts_.size())));
    size_t at = AddNode(Kind::kScalar, field, WireOf(scalar));
    out_.nodes_[at].scalar = scalar;
    out_.nodes_[at].text = static_cast<uint32_t>(out_.texts_.size());
    out_.uses_fields_ = out_.uses_fields_ || compiled.uses_fields();
    out_.texts_.push_back(std::move(compiled));
    return absl::OkStatus();
  }

  size_t AddNode(Kind kind, const pb::FieldDescriptor& field, WireType wire) {
    std::string key = FieldKey(field.number(), wire);
    out_.nodes_.push_back({.kind = kind,
                           .bytes_offset = static_cast<uint32_t>(out_.bytes_.size()),
                           .bytes_size = static_cast<uint32_t>(key.size())});
    out_.bytes_ += key;
    return out_.nodes_.size() - 1;
  }

  // The first placeholder in `value` (which has one): in a string, a key or deeper.
  const Placeholder& FirstPlaceholder(const Json& value) const {
    auto in_text = [this](const std::string& text) -> const Placeholder* {
      size_t marker = text.find(kMarker);
      if (marker == std::string::npos) return nullptr;
      size_t close = text.find(kMarker, marker + 1);
      return &placeholders_[std::stoul(text.substr(marker + 1, close - marker - 1))];
    };
    if (value.is_string()) {
      if (const Placeholder* p = in_text(value.get_ref<const std::string&>())) return *p;
    } else if (value.is_object()) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (const Placeholder* p = in_text(it.key())) return *p;
        if (HasMarker(it.value())) return FirstPlaceholder(it.value());
      }
    } else if (value.is_array()) {
      for (const Json& item : value) {
        if (HasMarker(item)) return FirstPlaceholder(item);
      }
    }
    return placeholders_.front();
  }

  absl::Status Unfillable(const Json& value, const pb::FieldDescriptor& field,
                          const std::string& what) const {
    const Placeholder& placeholder = FirstPlaceholder(value);
    return absl::InvalidArgumentError(absl::StrCat(
        source_, " ", TextPosition(json_, placeholder.at), ": ", placeholder.text, " in field '",
        field.name(), "': a placeholder cannot fill ", what, " (strings and numbers only)"));
  }

  // Random streams of the body's texts (the URL and headers use those below).
  static constexpr uint32_t kFirstStream = 0x10000;

  const GrpcSchema& schema_;
  std::string_view json_;
  std::string source_;  // std::string: Debian's absl has a string_view of its own.
  TemplateColumns columns_;
  std::vector<Placeholder> placeholders_;
  GrpcBodyTemplate& out_;
  // Nodes before this index belong to nested messages already ended: fixed bytes never join
  // them.
  size_t join_floor_ = 0;
};

absl::StatusOr<GrpcBodyTemplate> GrpcBodyTemplate::Build(const GrpcSchema& schema,
                                                         std::string_view type,
                                                         std::string_view json,
                                                         std::string_view source,
                                                         TemplateColumns columns) {
  // One pass over the text: the placeholders, checked; `sample` with each as 1 (for
  // libprotobuf's check of names and types), `marked` with each as a marker.
  const std::string name(source);  // Debian's absl has a string_view of its own.
  std::vector<Placeholder> placeholders;
  std::string sample, marked;
  bool in_string = false;
  for (size_t at = 0; at < json.size(); ++at) {
    char c = json[at];
    if (in_string && c == '\\' && at + 1 < json.size()) {
      sample.append(json.substr(at, 2));
      marked.append(json.substr(at, 2));
      ++at;
      continue;
    }
    if (c == '"') in_string = !in_string;
    if (c == '{' && TextTemplate::OpensPlaceholder(json, at + 1) && json[at + 1] == '{') {
      sample += '{';  // "{{name}": a literal brace.
      marked += '{';
      ++at;
      continue;
    }
    if (c != '{' || !TextTemplate::OpensPlaceholder(json, at)) {
      sample += c;
      marked += c;
      continue;
    }
    size_t close = json.find('}', at);
    std::string text(json.substr(at, close - at + 1));
    absl::StatusOr<TextTemplate> alone = TextTemplate::Compile(text, columns);
    if (!alone.ok()) {
      std::string why(alone.status().message());
      why.erase(0, std::min(why.size(), why.find(": ") + 2));  // Its own "column 1: ".
      return absl::InvalidArgumentError(absl::StrCat(name, " ", TextPosition(json, at), ": ", why));
    }
    bool rand = text.starts_with("{rand:");
    bool integer = rand || text == "{i}" || text == "{shard}" || text == "{worker}";
    bool negative = rand && text[6] == '-';
    std::string index = std::to_string(placeholders.size());
    placeholders.push_back({.text = text, .at = at, .integer = integer, .negative = negative});
    std::string marker = absl::StrCat("\\u0001", index, "\\u0001");
    // A whole value stands as "1", which libprotobuf takes for a string or a number.
    sample += in_string ? "1" : "\"1\"";
    marked += in_string ? marker : absl::StrCat("\"", marker, "\"");
    at = close;
  }

  // libprotobuf checks every name and value (its message names the field and the line). A
  // placeholder in a field it cannot fill is said as such, though libprotobuf may also find
  // the sample's "1" wrong there (a bytes field, a timestamp).
  std::string full_type(type);
  absl::StatusOr<std::string> wire = schema.EncodeJson(full_type, sample);
  if (!wire.ok()) {
    if (absl::Status placeholder =
            Plan(schema, full_type, json, marked, name, columns, std::move(placeholders), nullptr);
        absl::IsInvalidArgument(placeholder)) {
      return placeholder;
    }
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", wire.status().message()));
  }
  GrpcBodyTemplate body;
  if (placeholders.empty()) {
    body.fixed_.resize(kGrpcPrefixBytes);
    WriteGrpcPrefix(static_cast<uint32_t>(wire->size()), body.fixed_.data());
    body.fixed_ += *wire;
    body.max_size_ = body.fixed_.size();
    return body;
  }
  if (absl::Status s =
          Plan(schema, full_type, json, marked, name, columns, std::move(placeholders), &body);
      !s.ok()) {
    return s;
  }
  body.max_size_ = kGrpcPrefixBytes + body.MaxSize(0, body.nodes_.size());
  return body;
}

absl::Status GrpcBodyTemplate::Plan(const GrpcSchema& schema, const std::string& type,
                                    std::string_view json, const std::string& marked,
                                    const std::string& name, TemplateColumns columns,
                                    std::vector<Placeholder> placeholders, GrpcBodyTemplate* out) {
  const pb::Descriptor* descriptor = schema.MessageType(type);
  if (descriptor != nullptr && descriptor->file()->package() == "google.protobuf") {
    return absl::InvalidArgumentError(absl::StrCat(name, ": a placeholder cannot fill ", type,
                                                   "'s JSON form (strings and numbers only)"));
  }
  Json parsed = Json::parse(marked, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object() || descriptor == nullptr) {
    return absl::InternalError(absl::StrCat(name, ": the template's JSON did not read back"));
  }
  GrpcBodyTemplate scratch;  // Only checking: the plan is thrown away.
  Planner planner(schema, json, name, columns, std::move(placeholders),
                  out != nullptr ? *out : scratch);
  return planner.Message(*descriptor, parsed);
}

}  // namespace uringload::proto
