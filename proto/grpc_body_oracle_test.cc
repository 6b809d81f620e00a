// GrpcBodyTemplate against libprotobuf as the oracle: what uringload sends for a request is
// what libprotobuf makes of the same JSON with the request's values written in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "net/base/absl_view.h"
#include "proto/grpc_body_template.h"
#include "proto/testing/protobuf_oracle.h"
#include "proto/testing/schema_from_text.h"

namespace uringload::proto {
namespace {

constexpr const char* kRouteGuide = R"(syntax = "proto3";
package routeguide;
message Point { int32 latitude = 1; int32 longitude = 2; }
message Rectangle { Point lo = 1; Point hi = 2; }
message Feature { string name = 1; Point location = 2; }
message Items { repeated Point items = 1; int32 after = 2; map<string, Point> named = 3;
                repeated int32 nums = 4; }
service RouteGuide { rpc ListFeatures(Rectangle) returns (stream Feature); }
)";

std::string Hex(std::string_view bytes) { return absl::BytesToHexString(AbslView(bytes)); }

// A nested message with a placeholder, then a key of that message, then fixed bytes after it:
// the nested message's length counted the fixed bytes that followed (0a08 for 0a04).
TEST(GrpcBodyOracleTest, ANestedMessageEndsWhereItsFieldsEnd) {
  absl::StatusOr<GrpcSchema> schema = testing::SchemaFromText(kRouteGuide);
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<GrpcBodyTemplate> body = GrpcBodyTemplate::Build(
      *schema, "routeguide.Rectangle",
      R"({"lo": {"latitude": {i}, "longitude": 1}, "hi": {"latitude": 5}})", "--body");
  ASSERT_TRUE(body.ok()) << body.status();
  std::string out(body->max_size(), '\0');
  // protoc --encode=routeguide.Rectangle of {lo {latitude: 1 longitude: 1} hi {latitude: 5}}.
  EXPECT_EQ(Hex(body->RenderInto({.index = 1}, out)),
            "000000000a"
            "0a04080110011202"
            "0805");

  testing::ProtobufOracle oracle(*schema, "routeguide.Items");
  auto check = [&](std::string json) {
    testing::OracleBody case_body;
    size_t at = json.find("{i}");
    case_body.column_names = {"c0", "c1"};
    case_body.pieces.push_back(testing::OracleBody::Piece::Text(json.substr(0, at)));
    case_body.pieces.push_back(
        testing::OracleBody::Piece::Placeholder(testing::OracleBody::Fill::kIndex));
    case_body.pieces.push_back(testing::OracleBody::Piece::Text(json.substr(at + 3)));
    testing::OracleBody::Request request;
    request.index = 300;
    return oracle.Check(case_body, {request});
  };
  // A key that encodes to nothing, then a repeated message's next item, a map, a field.
  EXPECT_EQ(check(R"({"items": [{"latitude": {i}, "longitude": 0}, {"latitude": 2}]})"), "");
  EXPECT_EQ(check(R"({"items": [{"latitude": {i}, "longitude": 0}], "after": 7})"), "");
  EXPECT_EQ(check(R"({"items": [{"latitude": {i}, "longitude": 3}], "named": {"a": {}}})"), "");
  EXPECT_EQ(check(R"({"items": [{"latitude": {i}}], "nums": [], "after": 1})"), "");
}

// Thousands of random schemas and bodies: every field type, nesting, repetition, maps, oneofs
// and well-known types around placeholders of every kind, at random places.
TEST(GrpcBodyOracleTest, RandomBodiesOfRandomSchemasAreWhatLibprotobufEncodes) {
  int bodies = 0, with_placeholders = 0, requests_checked = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    testing::SeededChoices choices(seed);
    std::string text = testing::RandomProto(choices);
    absl::StatusOr<GrpcSchema> schema = testing::SchemaFromText(text);
    ASSERT_TRUE(schema.ok()) << schema.status() << "\n" << text;
    testing::ProtobufOracle oracle(*schema, "o.M0");
    for (int k = 0; k < 100; ++k) {
      testing::OracleBody body;
      std::vector<testing::OracleBody::Request> requests;
      testing::RandomCase(choices, oracle.descriptor(), body, requests);
      std::string difference = oracle.Check(body, requests);
      ASSERT_EQ(difference, "") << "schema of seed " << seed << ":\n" << text;
      ++bodies;
      with_placeholders += body.has_placeholders();
      requests_checked += static_cast<int>(requests.size());
    }
  }
  // Not a vacuous pass: most bodies had placeholders.
  EXPECT_EQ(bodies, 4000);
  EXPECT_GT(with_placeholders, 2000);
  EXPECT_GT(requests_checked, 6000);
}

}  // namespace
}  // namespace uringload::proto
