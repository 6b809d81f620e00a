// Random gRPC schemas and JSON bodies for them, for the protobuf oracle
// (proto/testing/protobuf_oracle.h): schemas with every scalar type, enums, nested and recursive
// messages, repeated fields, maps, oneofs, proto3 optional, well-known types and keys of one to
// five bytes; bodies with placeholders at random places, each a template and what it is for
// one request. The choices come from a seeded generator in tests, the fuzzer's bytes in fuzzing.
#pragma once

#include <google/protobuf/descriptor.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace uringload::proto::testing {

// Where random choices come from: a seeded generator in tests, the fuzzer's bytes in fuzzing.
class Choices {
 public:
  virtual ~Choices() = default;
  virtual uint32_t Below(uint32_t n) = 0;  // 0 to n - 1; n >= 1.
  bool OneIn(uint32_t n) { return Below(n) == 0; }
  template <typename T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Below(N)];
  }
};

class SeededChoices : public Choices {
 public:
  explicit SeededChoices(uint64_t seed) : random_(seed) {}
  uint32_t Below(uint32_t n) override {
    return static_cast<uint32_t>(std::uniform_int_distribution<uint64_t>(0, n - 1)(random_));
  }

 private:
  std::mt19937_64 random_;
};

// A .proto of package "o" whose message o.M0 is the one bodies are made of.
inline std::string RandomProto(Choices& choices) {
  static constexpr const char* kScalars[] = {"double",   "float",    "int32",  "int64",   "uint32",
                                             "uint64",   "sint32",   "sint64", "fixed32", "fixed64",
                                             "sfixed32", "sfixed64", "bool",   "string",  "bytes"};
  static constexpr const char* kKnown[] = {
      "google.protobuf.Timestamp",   "google.protobuf.Duration",    "google.protobuf.Int32Value",
      "google.protobuf.StringValue", "google.protobuf.DoubleValue", "google.protobuf.BoolValue",
      "google.protobuf.UInt64Value", "google.protobuf.Struct",      "google.protobuf.Value",
      "google.protobuf.ListValue",   "google.protobuf.FieldMask",   "google.protobuf.Empty"};
  static constexpr const char* kMapKeys[] = {"string", "int32",  "int64",  "uint32",
                                             "bool",   "sint64", "fixed32"};
  static constexpr uint32_t kNumbers[] = {1,    2,    15,     16,     2047,
                                          2048, 4000, 262143, 262144, 536870911};
  std::string proto = R"(syntax = "proto3";
package o;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/empty.proto";
enum E { E_ZERO = 0; E_ONE = 1; E_BIG = 300; }
)";
  uint32_t messages = 2 + choices.Below(4);
  for (uint32_t m = 0; m < messages; ++m) {
    absl::StrAppend(&proto, "message M", m, " {\n");
    std::set<uint32_t> used;
    auto number = [&] {
      for (;;) {
        uint32_t n = choices.OneIn(3) ? choices.Pick(kNumbers) : 1 + choices.Below(40);
        if (used.insert(n).second) return n;
      }
    };
    auto type = [&]() -> std::string {
      switch (choices.Below(6)) {
        case 0:
          return "E";
        case 1:
          return absl::StrCat("M", choices.Below(messages));
        case 2:
          return choices.Pick(kKnown);
        default:
          return choices.Pick(kScalars);
      }
    };
    uint32_t fields = 1 + choices.Below(9);
    bool in_oneof = false;
    for (uint32_t f = 0; f < fields; ++f) {
      // Names with underscores, so that the JSON name (fA1) differs from the field's (f_a_1).
      std::string name = absl::StrCat("f_", m, "_", f, choices.OneIn(2) ? "_x" : "");
      uint32_t label = choices.Below(10);
      if (in_oneof && (label < 6 || choices.OneIn(2))) {
        absl::StrAppend(&proto, "  }\n");
        in_oneof = false;
      }
      if (!in_oneof && label == 9) {
        absl::StrAppend(&proto, "  oneof one_", f, " {\n");
        in_oneof = true;
      }
      if (in_oneof) {
        absl::StrAppend(&proto, "    ", type(), " ", name, " = ", number(), ";\n");
      } else if (label < 3) {
        absl::StrAppend(&proto, "  repeated ", type(), " ", name, " = ", number(), ";\n");
      } else if (label == 3) {
        std::string value = type();
        absl::StrAppend(&proto, "  map<", choices.Pick(kMapKeys), ", ", value, "> ", name, " = ",
                        number(), ";\n");
      } else if (label == 4) {
        absl::StrAppend(&proto, "  optional ", type(), " ", name, " = ", number(), ";\n");
      } else {
        absl::StrAppend(&proto, "  ", type(), " ", name, " = ", number(), ";\n");
      }
    }
    if (in_oneof) absl::StrAppend(&proto, "  }\n");
    absl::StrAppend(&proto, "}\n");
  }
  return proto;
}

// A body template and what it is for one request: pieces of literal JSON text and
// placeholders, each placeholder in a string or a whole number.
class OracleBody {
 public:
  enum class Fill : uint8_t { kIndex, kShard, kWorker, kColumn };
  struct Piece {
    std::string literal;  // The template's text and the rendered text alike.
    bool placeholder = false;
    Fill fill = Fill::kIndex;
    uint32_t column = 0;
    bool in_string = false;
    std::string escaped;  // A literal "{{i}": the template's text, `literal` rendered.

    static Piece Text(std::string text, std::string escaped = "") {
      Piece piece;
      piece.literal = std::move(text);
      piece.escaped = std::move(escaped);
      return piece;
    }
    static Piece Placeholder(Fill fill, uint32_t column = 0, bool in_string = false) {
      Piece piece;
      piece.placeholder = true;
      piece.fill = fill;
      piece.column = column;
      piece.in_string = in_string;
      return piece;
    }
  };
  struct Request {
    uint64_t index = 0;
    uint32_t shard = 0;
    uint32_t worker = 0;
    std::vector<std::string> columns = {"", ""};
  };

  std::vector<Piece> pieces;
  std::vector<std::string> column_names;

  std::string Template() const {
    std::string out;
    for (const Piece& piece : pieces) {
      if (!piece.placeholder) {
        out += piece.escaped.empty() ? piece.literal : piece.escaped;
      } else if (piece.fill == Fill::kColumn) {
        absl::StrAppend(&out, "{", column_names[piece.column], "}");
      } else {
        out += piece.fill == Fill::kIndex   ? "{i}"
               : piece.fill == Fill::kShard ? "{shard}"
                                            : "{worker}";
      }
    }
    return out;
  }

  // The JSON with `request`'s values written in, as a user would have written it by hand.
  std::string Rendered(const Request& request) const {
    std::string out;
    for (const Piece& piece : pieces) {
      if (!piece.placeholder) {
        out += piece.literal;
        continue;
      }
      switch (piece.fill) {
        case Fill::kIndex:
          absl::StrAppend(&out, request.index);
          break;
        case Fill::kShard:
          absl::StrAppend(&out, request.shard);
          break;
        case Fill::kWorker:
          absl::StrAppend(&out, request.worker);
          break;
        case Fill::kColumn:
          out += JsonEscaped(request.columns[piece.column]);
          break;
      }
    }
    return out;
  }

  bool has_placeholders() const {
    for (const Piece& piece : pieces) {
      if (piece.placeholder) return true;
    }
    return false;
  }

  static std::string JsonEscaped(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20) {
        out += absl::StrFormat("\\u%04x", c);
      } else {
        out += static_cast<char>(c);
      }
    }
    return out;
  }
};

// Writes a random JSON body of `type` into `body`, with placeholders where a template may have
// them (strings and numbers of messages that are no well-known type; not map values).
class OracleBodyWriter {
 public:
  OracleBodyWriter(Choices& choices, OracleBody& body) : choices_(choices), body_(body) {}

  void Message(const google::protobuf::Descriptor& type, int depth) {
    namespace pb = google::protobuf;
    Text("{");
    Space();
    bool first = true;
    std::set<const pb::OneofDescriptor*> oneofs_set;
    for (int k = 0; k < type.field_count(); ++k) {
      const pb::FieldDescriptor& field = *type.field(k);
      if (choices_.OneIn(3)) continue;
      if (field.type() == pb::FieldDescriptor::TYPE_MESSAGE && !field.is_map() && depth >= 3 &&
          field.message_type()->file()->package() != "google.protobuf") {
        continue;  // Recursive types: deep enough.
      }
      const pb::OneofDescriptor* oneof = field.real_containing_oneof();
      if (oneof != nullptr && !oneofs_set.insert(oneof).second) continue;  // One member each.
      if (!first) Text(",");
      first = false;
      Space();
      Text(absl::StrCat("\"", choices_.OneIn(2) ? field.name() : field.json_name(), "\":"));
      Space();
      if (field.is_map()) {
        Map(field, depth);
      } else if (field.is_repeated()) {
        Text("[");
        uint32_t items = choices_.Below(4);
        for (uint32_t k = 0; k < items; ++k) {
          if (k > 0) Text(", ");
          Value(field, depth, /*fillable=*/true);
        }
        Text("]");
      } else {
        Value(field, depth, /*fillable=*/true);
      }
      Space();
    }
    Text("}");
  }

 private:
  void Map(const google::protobuf::FieldDescriptor& field, int depth) {
    namespace pb = google::protobuf;
    const pb::FieldDescriptor& key = *field.message_type()->map_key();
    const pb::FieldDescriptor& value = *field.message_type()->map_value();
    Text("{");
    uint32_t entries = choices_.Below(3);
    std::set<std::string> keys;
    for (uint32_t k = 0; k < entries; ++k) {
      std::string text;
      switch (key.cpp_type()) {
        case pb::FieldDescriptor::CPPTYPE_STRING:
          text = absl::StrCat("k", choices_.Below(5));
          break;
        case pb::FieldDescriptor::CPPTYPE_BOOL:
          text = choices_.OneIn(2) ? "true" : "false";
          break;
        case pb::FieldDescriptor::CPPTYPE_INT32:
        case pb::FieldDescriptor::CPPTYPE_INT64:
          text = absl::StrCat(static_cast<int>(choices_.Below(200)) - 100);
          break;
        default:
          text = absl::StrCat(choices_.Below(200));
          break;
      }
      if (!keys.insert(text).second) continue;
      if (keys.size() > 1) Text(", ");
      Text(absl::StrCat("\"", text, "\": "));
      Value(value, depth, /*fillable=*/false);
    }
    Text("}");
  }

  void Value(const google::protobuf::FieldDescriptor& field, int depth, bool fillable) {
    namespace pb = google::protobuf;
    if (field.type() == pb::FieldDescriptor::TYPE_MESSAGE) {
      const pb::Descriptor& type = *field.message_type();
      if (type.file()->package() == "google.protobuf") return Known(type);
      if (depth >= 3) return Text("{}");
      OracleBodyWriter nested(choices_, body_);
      nested.fillable_ = fillable && fillable_;
      return nested.Message(type, depth + 1);
    }
    bool fill = fillable && fillable_ && !choices_.OneIn(3);
    switch (field.type()) {
      case pb::FieldDescriptor::TYPE_STRING:
        return String(fill);
      case pb::FieldDescriptor::TYPE_BYTES:
        return Text(absl::StrCat("\"", absl::Base64Escape(Literal(false)), "\""));
      case pb::FieldDescriptor::TYPE_BOOL:
        return Text(choices_.OneIn(2) ? "true" : "false");
      case pb::FieldDescriptor::TYPE_ENUM:
        return Text(choices_.Pick(kEnumValues));
      default:
        break;
    }
    bool is_unsigned = field.cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT32 ||
                       field.cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT64;
    bool quoted = choices_.OneIn(2);
    if (!fill && (field.cpp_type() == pb::FieldDescriptor::CPPTYPE_FLOAT ||
                  field.cpp_type() == pb::FieldDescriptor::CPPTYPE_DOUBLE)) {
      return Text(choices_.Pick(kFloats));  // Quoted or not as written.
    }
    if (quoted) Text("\"");
    if (fill) {
      Placeholder(static_cast<OracleBody::Fill>(choices_.Below(3)), 0, false);
    } else {
      int64_t n = choices_.Pick(kIntegers);
      if (!is_unsigned && choices_.OneIn(2)) n = -n;
      Text(absl::StrCat(n));
    }
    if (quoted) Text("\"");
  }

  void String(bool fill) {
    Text("\"");
    uint32_t parts = 1 + choices_.Below(4);
    for (uint32_t k = 0; k < parts; ++k) {
      if (fill && choices_.OneIn(2)) {
        uint32_t kind = choices_.Below(5);
        if (kind >= 3) {
          uint32_t column = choices_.Below(2);
          Placeholder(OracleBody::Fill::kColumn, column, true);
        } else {
          Placeholder(static_cast<OracleBody::Fill>(kind), 0, true);
        }
      } else if (fill && choices_.OneIn(8)) {
        body_.pieces.push_back(OracleBody::Piece::Text("{i}", "{{i}"));  // A literal brace.
      } else {
        Text(Literal(true));
      }
    }
    Text("\"");
  }

  // Text for a JSON string: escapes as a user writes them (`json`), or plain bytes.
  std::string Literal(bool json) {
    static constexpr const char* kJsonPieces[] = {
        "a", "zoë", "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", " ", "/", "\\/", "-"};
    static constexpr const char* kPlainPieces[] = {"a", "b\x01", "\xff\x00", "zz"};
    std::string out;
    uint32_t pieces = choices_.Below(4);
    for (uint32_t k = 0; k < pieces; ++k) {
      out += json ? choices_.Pick(kJsonPieces) : std::string(choices_.Pick(kPlainPieces), 2);
    }
    return out;
  }

  void Known(const google::protobuf::Descriptor& type) {
    const std::string& name = type.name();
    if (name == "Timestamp") return Text("\"2026-12-07T10:00:00.5Z\"");
    if (name == "Duration") return Text("\"1.5s\"");
    if (name == "Int32Value") return Text(absl::StrCat(choices_.Pick(kIntegers) % 1000));
    if (name == "StringValue") return Text("\"w\"");
    if (name == "DoubleValue") return Text("2.5");
    if (name == "BoolValue") return Text("true");
    if (name == "UInt64Value") return Text("\"18446744073709551615\"");
    if (name == "Struct") return Text(R"({"a": 1, "b": [true, null, "x"], "c": {}})");
    if (name == "Value") return Text(choices_.OneIn(2) ? "\"v\"" : "[1, {\"k\": null}]");
    if (name == "ListValue") return Text("[1, \"two\", false]");
    if (name == "FieldMask") return Text("\"a.b,cD\"");
    return Text("{}");  // Empty.
  }

  void Placeholder(OracleBody::Fill fill, uint32_t column, bool in_string) {
    body_.pieces.push_back(OracleBody::Piece::Placeholder(fill, column, in_string));
  }

  void Text(std::string_view text) {
    if (!body_.pieces.empty() && !body_.pieces.back().placeholder &&
        body_.pieces.back().escaped.empty()) {
      body_.pieces.back().literal += text;
    } else {
      body_.pieces.push_back(OracleBody::Piece::Text(std::string(text)));
    }
  }
  void Space() {
    static constexpr const char* kSpaces[] = {"", "", " ", "\n  ", "\t"};
    Text(choices_.Pick(kSpaces));
  }

  static constexpr const char* kEnumValues[] = {"\"E_ZERO\"", "\"E_ONE\"", "\"E_BIG\"",
                                                "1",          "300",       "0"};
  static constexpr const char* kFloats[] = {"0",       "1.5",           "-2.25", "1e10",
                                            "\"NaN\"", "\"-Infinity\"", "3"};
  static constexpr int64_t kIntegers[] = {0, 1, 127, 128, 300, 16384, 2147483647};

  Choices& choices_;
  OracleBody& body_;
  bool fillable_ = true;  // False inside a map's value.
};

// A random body for `oracle`'s type and a few requests for it.
inline void RandomCase(Choices& choices, const google::protobuf::Descriptor& type, OracleBody& body,
                       std::vector<OracleBody::Request>& requests) {
  static constexpr uint64_t kIndexes[] = {0,     1,     127,     128,       300,
                                          16383, 16384, 2097152, 268435456, 2147483647};
  static constexpr const char* kColumnValues[] = {
      "", "x", "zoë", "\"q\"", "a\\b", "{i}", "\n", "\xe2\x82\xac", "long value 123"};
  body.column_names = {"c0", "c1"};
  OracleBodyWriter(choices, body).Message(type, 0);
  uint32_t count = 1 + choices.Below(3);
  for (uint32_t k = 0; k < count; ++k) {
    OracleBody::Request request;
    request.index = choices.OneIn(2) ? choices.Pick(kIndexes) : choices.Below(1u << 31);
    request.shard = choices.Below(4);
    request.worker = choices.Below(3);
    request.columns = {choices.Pick(kColumnValues), choices.Pick(kColumnValues)};
    requests.push_back(std::move(request));
  }
}

}  // namespace uringload::proto::testing
