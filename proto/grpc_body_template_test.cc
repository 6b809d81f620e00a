#include "proto/grpc_body_template.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "proto/grpc_message.h"
#include "proto/testing/decode_to_json.h"
#include "proto/testing/schema_from_text.h"

namespace uringload::proto {
namespace {

constexpr const char* kProto = R"(syntax = "proto3";
package t;
import "google/protobuf/timestamp.proto";
enum Color { RED = 0; BLUE = 1; }
message Money { string currency = 1; int64 cents = 2; }
message Line { string sku = 1; uint32 quantity = 2; Money price = 3; }
message Order {
  string user = 1;
  int32 count = 2;
  sint32 delta = 3;
  sint64 big_delta = 4;
  uint64 serial = 5;
  fixed64 stamp = 6;
  sfixed32 small = 7;
  double weight = 8;
  float ratio = 9;
  bool gift = 10;
  Color color = 11;
  bytes blob = 12;
  repeated Line lines = 13;
  repeated int64 ids = 14;
  map<string, string> labels = 15;
  google.protobuf.Timestamp at = 16;
  Money total = 17;
}
)";

class GrpcBodyTemplateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<GrpcSchema> schema = testing::SchemaFromText(kProto);
    ASSERT_TRUE(schema.ok()) << schema.status();
    schema_.emplace(*std::move(schema));
  }

  absl::StatusOr<GrpcBodyTemplate> Build(std::string_view json, TemplateColumns columns = {}) {
    return GrpcBodyTemplate::Build(*schema_, "t.Order", json, "--body", columns);
  }

  // The message of a rendered body, as libprotobuf reads it back (JSON).
  std::string Decoded(std::string_view body) {
    std::optional<GrpcPrefix> prefix = ReadGrpcPrefix(body);
    EXPECT_TRUE(prefix.has_value());
    if (!prefix.has_value()) return "";
    EXPECT_EQ(prefix->flag, 0) << "not compressed";
    EXPECT_EQ(prefix->size, body.size() - kGrpcPrefixBytes);
    absl::StatusOr<std::string> json = testing::DecodeToJson(*schema_, "t.Order", body.substr(5));
    EXPECT_TRUE(json.ok()) << json.status();
    return json.ok() ? *json : "";
  }

  // What libprotobuf makes of the same JSON with the placeholders' text written in.
  std::string Expected(std::string_view json) {
    absl::StatusOr<std::string> wire = schema_->EncodeJson("t.Order", json);
    EXPECT_TRUE(wire.ok()) << wire.status();
    absl::StatusOr<std::string> back =
        testing::DecodeToJson(*schema_, "t.Order", wire.ok() ? *wire : "");
    return back.ok() ? *back : "";
  }

  std::optional<GrpcSchema> schema_;
};

TEST_F(GrpcBodyTemplateTest, WithoutPlaceholdersTheBodyIsEncodedOnce) {
  absl::StatusOr<GrpcBodyTemplate> body = Build(R"({"user": "ann", "count": 3, "gift": true})");
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_TRUE(body->is_static());
  EXPECT_EQ(Decoded(body->fixed()), Expected(R"({"user": "ann", "count": 3, "gift": true})"));
  EXPECT_EQ(body->max_size(), body->fixed().size());
  // A doubled brace is a literal one, as in every template.
  absl::StatusOr<GrpcBodyTemplate> braces = Build(R"({"user": "{{i}"})");
  ASSERT_TRUE(braces.ok()) << braces.status();
  EXPECT_TRUE(braces->is_static());
  EXPECT_EQ(Decoded(braces->fixed()), Expected(R"({"user": "{i}"})"));
}

// Every kind of field a placeholder fills, nested and repeated, next to fixed fields of every
// other kind: the rendering reads back as libprotobuf's encoding of the same values.
TEST_F(GrpcBodyTemplateTest, PlaceholdersRenderAsLibprotobufEncodesTheSameValues) {
  const std::string json = R"({
    "user": "u{i}-{{i}",
    "count": "{i}",
    "delta": {i},
    "bigDelta": "{i}",
    "serial": "{i}",
    "stamp": "{i}",
    "small": "{i}",
    "weight": "{i}",
    "ratio": {i},
    "gift": true,
    "color": "BLUE",
    "blob": "aGk=",
    "lines": [{"sku": "s{i}", "quantity": 2, "price": {"currency": "EUR", "cents": "{i}"}},
              {"sku": "fixed"}],
    "ids": [1, "{i}", 3],
    "labels": {"a": "b"},
    "at": "2026-12-06T10:00:00Z",
    "total": {"currency": "c{i}"}
  })";
  absl::StatusOr<GrpcBodyTemplate> body = Build(json);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_FALSE(body->is_static());
  std::string out(body->max_size(), '\0');
  for (uint64_t i : {0, 7, 300, 70000}) {  // Varints of one, two and three bytes.
    std::string_view rendered = body->RenderInto({.index = i}, out);
    std::string written = absl::StrReplaceAll(json, {{"{{i}", "@"}});
    written = absl::StrReplaceAll(written, {{"{i}", std::to_string(i)}});
    written = absl::StrReplaceAll(written, {{"@", "{i}"}});
    EXPECT_EQ(Decoded(rendered), Expected(written)) << i;
  }
  // Negative numbers: int32 sign-extended, sint32 zigzagged.
  absl::StatusOr<GrpcBodyTemplate> negative =
      Build(R"({"count": "{rand:-5--5}", "delta": "{rand:-7--7}", "bigDelta": "{rand:-9--9}"})");
  ASSERT_TRUE(negative.ok()) << negative.status();
  EXPECT_EQ(Decoded(negative->RenderInto({.index = 1}, out)),
            Expected(R"({"count": -5, "delta": -7, "bigDelta": "-9"})"));
}

TEST_F(GrpcBodyTemplateTest, RandomValuesAndDataColumnsFollowTheContext) {
  std::vector<std::string> names = {"name"};
  std::vector<size_t> sizes = {8};
  absl::StatusOr<GrpcBodyTemplate> body =
      Build(R"({"user": "{name}", "count": "{rand:1-100}", "serial": "{rand:1-100}"})",
            {.names = names, .max_sizes = sizes});
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_TRUE(body->uses_fields());
  std::string out(body->max_size(), '\0');
  std::vector<std::string_view> row = {"zoë"};
  int differ = 0;
  for (uint64_t i = 0; i < 50; ++i) {
    TemplateContext context{.index = i, .seed = 3, .fields = row};
    std::string first(body->RenderInto(context, out));
    EXPECT_EQ(first, body->RenderInto(context, out)) << "the same request, the same body";
    absl::StatusOr<std::string> json = testing::DecodeToJson(*schema_, "t.Order", first.substr(5));
    ASSERT_TRUE(json.ok());
    EXPECT_NE(json->find("\"user\":\"zoë\""), std::string::npos) << *json;
    // Two {rand} of one body are two values: they differ in most requests.
    size_t count = json->find("\"count\":");
    size_t serial = json->find("\"serial\":\"");
    ASSERT_NE(count, std::string::npos);
    ASSERT_NE(serial, std::string::npos);
    int c = std::stoi(json->substr(count + 8));
    int s = std::stoi(json->substr(serial + 10));
    EXPECT_GE(c, 1);
    EXPECT_LE(c, 100);
    differ += c != s;
  }
  EXPECT_GT(differ, 40);
}

// A streaming call's body: the one rendering, prefix and all, once per message.
TEST_F(GrpcBodyTemplateTest, AStreamingCallSendsItsMessageAgainForEachMessage) {
  absl::StatusOr<GrpcBodyTemplate> fixed = Build(R"({"user": "ann"})");
  absl::StatusOr<GrpcBodyTemplate> rendered = Build(R"({"user": "u{i}", "count": "{i}"})");
  ASSERT_TRUE(fixed.ok() && rendered.ok());
  std::string one(fixed->fixed());
  fixed->SetMessages(3);
  EXPECT_EQ(fixed->messages(), 3u);
  EXPECT_EQ(fixed->fixed(), one + one + one);
  EXPECT_EQ(fixed->max_size(), 3 * one.size());
  std::string storage(rendered->max_size(), '\0');
  std::string single(rendered->RenderInto({.index = 1234}, storage));
  size_t one_max = rendered->max_size();
  rendered->SetMessages(4);
  EXPECT_EQ(rendered->max_size(), 4 * one_max);
  storage.assign(rendered->max_size(), '\0');
  std::string_view all = rendered->RenderInto({.index = 1234}, storage);
  EXPECT_EQ(all, single + single + single + single);
  EXPECT_EQ(Decoded(all.substr(0, single.size())), Expected(R"({"user": "u1234", "count": 1234})"));
}

TEST_F(GrpcBodyTemplateTest, BadTemplatesSayWhereAndWhy) {
  auto error = [&](std::string_view json) { return std::string(Build(json).status().message()); };
  EXPECT_EQ(error(R"({"gift": "{i}"})"),
            "--body column 11: {i} in field 'gift': a placeholder cannot fill a field of "
            "type bool (strings and numbers only)");
  EXPECT_EQ(error(R"({"color": "{i}"})"),
            "--body column 12: {i} in field 'color': a placeholder cannot fill a field "
            "of type enum (strings and numbers only)");
  EXPECT_EQ(error(R"({"blob": "{i}"})"),
            "--body column 11: {i} in field 'blob': a placeholder cannot fill a field of "
            "type bytes (strings and numbers only)");
  EXPECT_EQ(error(R"({"labels": {"k": "{i}"}})"),
            "--body column 19: {i} in field 'labels': a placeholder cannot fill a map's "
            "values (strings and numbers only)");
  EXPECT_EQ(error(R"({"at": "{i}"})"),
            "--body column 9: {i} in field 'at': a placeholder cannot fill "
            "google.protobuf.Timestamp's JSON form (strings and numbers only)");
  EXPECT_EQ(error(R"({"count": "{uuid}"})"),
            "--body column 12: field 'count' is a int32: a placeholder fills it only "
            "whole, and only with {i}, {rand:LO-HI}, {shard} or {worker}");
  EXPECT_EQ(error(R"({"serial": "{rand:-1-5}"})"),
            "--body column 13: field 'serial' is a uint64: {rand:-1-5} may be negative");
  EXPECT_EQ(error("{\n  \"user\": \"{nope}\"}"),
            "--body line 2, column 12: unknown placeholder {nope} (known: i, rand, uuid, shard, "
            "worker; a data column needs --data)");
  // Names and values libprotobuf checks: the field and its line.
  std::string unknown = error("{\n  \"user\": \"{i}\",\n  \"usr\": 1}");
  EXPECT_NE(unknown.find("--body: JSON for t.Order, line 3"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("usr"), std::string::npos) << unknown;
  std::string mixed = error(R"({"count": "n{i}"})");
  EXPECT_NE(mixed.find("count"), std::string::npos) << mixed;
}

}  // namespace
}  // namespace uringload::proto
