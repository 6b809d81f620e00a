#include "proto/json_pointer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace uringload::proto {
namespace {

TEST(JsonPointerTest, TokensFollowRfc6901) {
  using Tokens = std::vector<std::string>;
  EXPECT_EQ(*ParseJsonPointer(""), Tokens{});
  EXPECT_EQ(*ParseJsonPointer("/"), Tokens{""});
  EXPECT_EQ(*ParseJsonPointer("/items/0/id"), (Tokens{"items", "0", "id"}));
  EXPECT_EQ(*ParseJsonPointer("/a~1b/m~0n//"), (Tokens{"a/b", "m~n", "", ""}));
  EXPECT_EQ(ParseJsonPointer("items/0").status().message(),
            "'items/0' is not a JSON pointer: it must start with '/'");
  for (const char* bad : {"/a~", "/a~2", "/~x/b"}) {
    EXPECT_EQ(ParseJsonPointer(bad).status().message(),
              std::string("'") + bad + "' is not a JSON pointer: '~' must be ~0 or ~1");
  }
}

TEST(JsonPointerTest, AnIndexIsDigitsWithoutALeadingZero) {
  EXPECT_EQ(JsonPointerIndex("0"), 0);
  EXPECT_EQ(JsonPointerIndex("17"), 17);
  for (const char* bad : {"", "01", "-1", "1a", "1234567890123456789"}) {
    EXPECT_EQ(JsonPointerIndex(bad), -1) << bad;
  }
}

}  // namespace
}  // namespace uringload::proto
