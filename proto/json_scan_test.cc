#include "proto/json_scan.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::proto {
namespace {

struct Member {
  std::string key;
  std::string raw;
  bool is_string;
  bool operator==(const Member&) const = default;
};

absl::StatusOr<std::vector<Member>> Members(std::string_view line) {
  std::vector<Member> members;
  absl::Status s = ForEachFlatMember(line, [&](std::string_view k, std::string_view v, bool str) {
    members.push_back({std::string(k), std::string(v), str});
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return members;
}

TEST(JsonScanTest, AFlatObjectsMembersAreViewsOfItsText) {
  absl::StatusOr<std::vector<Member>> m =
      Members(R"( {"id": 7, "name":"a\"b" ,"ok":true,"none":null} )");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*m, (std::vector<Member>{{"id", "7", false},
                                     {"name", R"(a\"b)", true},
                                     {"ok", "true", false},
                                     {"none", "null", false}}));
}

TEST(JsonScanTest, MalformedOrNestedTextIsRefusedWithTheReason) {
  EXPECT_EQ(Members("[1]").status().message(), "the line is not a JSON object");
  EXPECT_EQ(Members("{}").status().message(), "the object has no keys");
  EXPECT_EQ(Members(R"({"a":{"b":1}})").status().message(),
            "the value of 'a' is an object or array; only flat objects are read");
  EXPECT_EQ(Members(R"({"a":1} x)").status().message(), "text after the object");
  EXPECT_EQ(Members(R"({"a" 1})").status().message(), "expected ':' after a key");
  EXPECT_EQ(Members(R"({"a":"x)").status().message(), "a string has no closing quote");
  // The callback's error stops the scan.
  int calls = 0;
  absl::Status stop = ForEachFlatMember(R"({"a":1,"b":2})", [&](auto, auto, bool) {
    ++calls;
    return absl::InvalidArgumentError("stop");
  });
  EXPECT_EQ(stop.message(), "stop");
  EXPECT_EQ(calls, 1);
}

// Without an escape the string is a view of its text; with one, decoded into the scratch
// (UTF-8 from \u escapes, surrogate pairs joined).
TEST(JsonScanTest, StringsAreDecodedOnlyWhenTheyHaveEscapes) {
  std::string scratch;
  std::string_view out;
  std::string_view plain = "plain text";
  ASSERT_TRUE(DecodeJsonString(plain, &scratch, &out).ok());
  EXPECT_EQ(out.data(), plain.data());
  EXPECT_TRUE(scratch.empty());
  ASSERT_TRUE(DecodeJsonString(R"(a\n\t\"\\\/\u00e9\ud83d\ude00)", &scratch, &out).ok());
  EXPECT_EQ(out, "a\n\t\"\\/\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(DecodeJsonString(R"(\u12)", &scratch, &out).message(),
            "a \\u escape needs four hex digits");
  EXPECT_EQ(DecodeJsonString(R"(\q)", &scratch, &out).message(), "unknown escape \\q");
  EXPECT_EQ(DecodeJsonString("\\", &scratch, &out).message(), "a string ends in a lone backslash");
}

}  // namespace
}  // namespace uringload::proto
