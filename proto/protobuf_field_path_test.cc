#include "proto/protobuf_field_path.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "proto/testing/decode_to_json.h"
#include "proto/testing/schema_from_text.h"

namespace uringload::proto {
namespace {

constexpr char kFieldPathProto[] = R"(
syntax = "proto3";
package t;
enum Color { NONE = 0; RED = 1; BLUE = 2; }
message Owner { string name = 1; int32 age = 2; }
message Reply {
  string token = 1;
  repeated string items = 2;
  Owner owner = 3;
  repeated Owner others = 4;
  int32 delta = 5;
  sint64 offset = 6;
  bool ready = 7;
  Color color = 8;
  bytes blob = 9;
  repeated int32 scores = 10;
  double ratio = 11;
  uint64 big = 12;
  map<string, string> labels = 13;
  repeated fixed32 marks = 14;
  string user_name = 15;
}
)";

class ProtobufFieldPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<GrpcSchema> schema = testing::SchemaFromText(kFieldPathProto);
    ASSERT_TRUE(schema.ok()) << schema.status();
    schema_.emplace(*std::move(schema));
  }

  // The text `pointer` reads from the message `json` encodes; "<absent>" when not found.
  std::string ReadFrom(std::string_view json, std::string_view pointer, size_t room = 64) {
    absl::StatusOr<std::string> wire = schema_->EncodeJson("t.Reply", json);
    EXPECT_TRUE(wire.ok()) << wire.status();
    absl::StatusOr<ProtobufFieldPath> path =
        ProtobufFieldPath::Compile(*schema_, "t.Reply", pointer);
    EXPECT_TRUE(path.ok()) << path.status();
    if (!wire.ok() || !path.ok()) return "";
    std::string out(room, '\0');
    int64_t size = path->Read(*wire, out);
    if (size < 0) return "<absent>";
    if (size > static_cast<int64_t>(room)) return "<too long>";
    return out.substr(0, size);
  }
  std::string CompileError(std::string_view pointer) {
    absl::StatusOr<ProtobufFieldPath> path =
        ProtobufFieldPath::Compile(*schema_, "t.Reply", pointer);
    return path.ok() ? "" : std::string(path.status().message());
  }

  std::optional<GrpcSchema> schema_;
};

TEST_F(ProtobufFieldPathTest, ValuesReadAsTheirJsonMappingWritesThem) {
  const std::string json = R"({
    "token": "abc", "items": ["x", "y", "z"], "owner": {"name": "ann", "age": 41},
    "others": [{"name": "bob"}, {"name": "cy", "age": -3}], "delta": -7, "offset": "-9000000000",
    "ready": true, "color": "BLUE", "blob": "aGk=", "scores": [5, 300, -1], "ratio": 0.25,
    "big": "18446744073709551615", "marks": [7, 8], "userName": "dee"
  })";
  EXPECT_EQ(ReadFrom(json, "/token"), "abc");
  EXPECT_EQ(ReadFrom(json, "/items/0"), "x");
  EXPECT_EQ(ReadFrom(json, "/items/2"), "z");
  EXPECT_EQ(ReadFrom(json, "/items/3"), "<absent>");
  EXPECT_EQ(ReadFrom(json, "/owner/name"), "ann");
  EXPECT_EQ(ReadFrom(json, "/owner/age"), "41");
  EXPECT_EQ(ReadFrom(json, "/others/1/name"), "cy");
  EXPECT_EQ(ReadFrom(json, "/others/1/age"), "-3");
  EXPECT_EQ(ReadFrom(json, "/others/0/age"), "<absent>");  // 0: left off the wire.
  EXPECT_EQ(ReadFrom(json, "/delta"), "-7");
  EXPECT_EQ(ReadFrom(json, "/offset"), "-9000000000");
  EXPECT_EQ(ReadFrom(json, "/ready"), "true");
  EXPECT_EQ(ReadFrom(json, "/color"), "BLUE");
  EXPECT_EQ(ReadFrom(json, "/blob"), "aGk=");
  EXPECT_EQ(ReadFrom(json, "/scores/1"), "300");  // Packed, as proto3 writes them.
  EXPECT_EQ(ReadFrom(json, "/scores/2"), "-1");
  EXPECT_EQ(ReadFrom(json, "/marks/1"), "8");
  EXPECT_EQ(ReadFrom(json, "/ratio"), "0.25");
  EXPECT_EQ(ReadFrom(json, "/big"), "18446744073709551615");
  EXPECT_EQ(ReadFrom(json, "/userName"), "dee");  // The JSON name, or the .proto's.
  EXPECT_EQ(ReadFrom(json, "/user_name"), "dee");
  EXPECT_EQ(ReadFrom(json, "/token", 2), "<too long>");
  EXPECT_EQ(ReadFrom("{}", "/token"), "<absent>");
}

TEST_F(ProtobufFieldPathTest, BytesThatDoNotParseFindNothing) {
  absl::StatusOr<ProtobufFieldPath> path =
      ProtobufFieldPath::Compile(*schema_, "t.Reply", "/token");
  ASSERT_TRUE(path.ok());
  char out[16];
  EXPECT_EQ(path->Read(std::string_view("\x0a\x09"
                                        "ab",
                                        4),
                       out),
            -1);                                                    // Length past the end.
  EXPECT_EQ(path->Read(std::string_view("\x0b\x01", 2), out), -1);  // A group never ended.
  EXPECT_EQ(path->Read(std::string_view("\x08\x01", 2), out), -1);  // Field 1 as a varint.
}

// Bytes read as libprotobuf reads them (the fuzz target found the first case): an occurrence
// of a field in a wire type not its type's is unknown, so the one before it stands; the
// occurrences of a singular message merge; a repeated field's elements count over packed and
// unpacked runs and over the occurrences of the message that holds them.
TEST_F(ProtobufFieldPathTest, BytesReadAsLibprotobufReadsThem) {
  auto read = [&](std::string_view pointer, std::string_view wire) {
    absl::StatusOr<ProtobufFieldPath> path =
        ProtobufFieldPath::Compile(*schema_, "t.Reply", pointer);
    EXPECT_TRUE(path.ok()) << path.status();
    char out[32];
    int64_t n = path.ok() ? path->Read(wire, out) : -1;
    return n < 0 ? std::string("<absent>") : std::string(out, n);
  };
  // token "a", then field 1 as a varint.
  std::string_view unknown(
      "\x0a\x01"
      "a\x08\x05",
      5);
  EXPECT_EQ(read("/token", unknown), "a");
  // owner {name: "x"}, then owner {age: 7}: one owner of both.
  std::string_view merged("\x1a\x03\x0a\x01x\x1a\x02\x10\x07", 9);
  EXPECT_EQ(read("/owner/name", merged), "x");
  EXPECT_EQ(read("/owner/age", merged), "7");
  // scores: 50 unpacked, then [1, 2] packed.
  std::string_view scores("\x50\x32\x52\x02\x01\x02", 6);
  EXPECT_EQ(read("/scores/0", scores), "50");
  EXPECT_EQ(read("/scores/2", scores), "2");
  EXPECT_EQ(read("/scores/3", scores), "<absent>");
  // others[0] {name: "p"}, others[1] {name: "q"}: repeated messages do not merge.
  std::string_view others("\x22\x03\x0a\x01p\x22\x03\x0a\x01q", 10);
  EXPECT_EQ(read("/others/1/name", others), "q");
  EXPECT_EQ(read("/others/0/name", others), "p");
  // A group where field 12 is (proto2's wire type, unknown here), a group nested in it, then
  // the token: the groups are skipped whole (the fuzz target found it read nothing).
  std::string_view group(
      "\x63\x0b\x0c\x64\x0a\x01"
      "a",
      7);
  EXPECT_EQ(read("/token", group), "a");
  EXPECT_EQ(read("/big", group), "<absent>");
  // Each against libprotobuf itself.
  for (std::string_view wire : {unknown, merged, scores, others, group}) {
    absl::StatusOr<std::string> json = testing::DecodeToJson(*schema_, "t.Reply", wire);
    EXPECT_TRUE(json.ok()) << json.status();
  }
  EXPECT_NE(
      testing::DecodeToJson(*schema_, "t.Reply", merged)->find(R"("owner":{"name":"x","age":7})"),
      std::string::npos);
  EXPECT_NE(testing::DecodeToJson(*schema_, "t.Reply", scores)->find(R"("scores":[50,1,2])"),
            std::string::npos);
  EXPECT_NE(testing::DecodeToJson(*schema_, "t.Reply", unknown)->find(R"("token":"a")"),
            std::string::npos);
  EXPECT_NE(testing::DecodeToJson(*schema_, "t.Reply", group)->find(R"("token":"a")"),
            std::string::npos);
}

TEST_F(ProtobufFieldPathTest, APathTheTypeCannotHaveIsAnError) {
  EXPECT_NE(CompileError("/nope").find("t.Reply has no field 'nope'"), std::string::npos);
  EXPECT_NE(CompileError("/items").find("items is repeated: add an index"), std::string::npos);
  EXPECT_NE(CompileError("/items/x").find("an index follows it"), std::string::npos);
  EXPECT_NE(CompileError("/owner").find("owner is a message"), std::string::npos);
  EXPECT_NE(CompileError("/token/x").find("token is not a message"), std::string::npos);
  EXPECT_NE(CompileError("/labels").find("labels is a map"), std::string::npos);
  EXPECT_NE(CompileError("/owner/nick").find("t.Owner has no field 'nick'"), std::string::npos);
  EXPECT_NE(CompileError("token").find("names a field"), std::string::npos);
}

}  // namespace
}  // namespace uringload::proto
