#include "tests/support/flat_json.h"

#include <gtest/gtest.h>

namespace uringload::testing {
namespace {

TEST(FlatJsonTest, FlattensNestedValues) {
  absl::StatusOr<FlatJson> json =
      FlattenJson(R"({"a": {"b": 12, "c": "x\"y"}, "l": [1, {"k": null}], "e": {}})");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(JsonCount(*json, "a.b"), 12u);
  EXPECT_EQ(json->at("a.c"), "x\"y");
  EXPECT_EQ(json->at("l.0"), "1");
  EXPECT_EQ(json->at("l.1.k"), "null");
  EXPECT_FALSE(FlattenJson("{\"a\": }").ok());
  EXPECT_FALSE(FlattenJson("{} x").ok());
}

}  // namespace
}  // namespace uringload::testing
