#include "core/flow/text_pattern.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace uringload::core {
namespace {

// What std::regex (ECMAScript) captures in group 1 of its leftmost match, or "<none>".
std::string Reference(const std::string& pattern, const std::string& text) {
  std::smatch match;
  std::regex re(pattern);
  if (!std::regex_search(text, match, re) || !match[1].matched) return "<none>";
  return match[1].str();
}

std::string Ours(const std::string& pattern, const std::string& text, PatternScratch& scratch) {
  absl::StatusOr<TextPattern> p = TextPattern::Compile(pattern);
  EXPECT_TRUE(p.ok()) << pattern << ": " << p.status();
  if (!p.ok()) return "<error>";
  std::optional<std::string_view> group = p->Search(text, scratch);
  return group.has_value() ? std::string(*group) : "<none>";
}

// Each pattern on each text captures what JavaScript's (and std::regex's) leftmost-first
// search captures.
TEST(TextPatternTest, CapturesWhatEcmascriptCaptures) {
  const std::vector<std::string> patterns = {
      R"re("token":\s*"([^"]+)")re",
      R"re(name="csrf" value="(.*?)")re",
      R"re(id=(\d+))re",
      R"re(^(\w+))re",
      R"re((\w+)$)re",
      R"re(a(b*)c)re",
      R"re(a(b+?)b*c)re",
      R"re((?:x|y)+(z?))re",
      R"re(([a-c-]+))re",
      R"re(\.(\S+))re",
      R"re((foo|foobar)baz)re",
      R"re((a|ab)(?:c|bcd))re",
      R"re(<(.+)>)re",
      R"re(<(.+?)>)re",
      R"re([^\d\s]+(\d))re",
      R"re(\[(\w*)\])re",
      R"re(n:\s*(\d+)\s*$)re",
  };
  const std::vector<std::string> texts = {
      R"({"token": "abc.def", "user": "ann"})",
      R"(<input name="csrf" value="k9 x"/><input name="csrf" value="2">)",
      "id=42&id=7",
      "hello world",
      "abbbc ac abc",
      "xyxz yy",
      "a-b-c d",
      "file.tar.gz",
      "foobarbaz foobaz",
      "abcd ac",
      "<a><b>",
      "xyz9 1",
      "[one] []",
      "n: 12\nn: 3",
      "",
  };
  PatternScratch scratch;
  for (const std::string& pattern : patterns) {
    for (const std::string& text : texts) {
      EXPECT_EQ(Ours(pattern, text, scratch), Reference(pattern, text))
          << "pattern " << pattern << " on " << text;
    }
  }
}

// RE2's syntax: what it refuses (backreferences, lookaround, bad syntax) is an error in its
// words, and so is a pattern without exactly one group.
TEST(TextPatternTest, WhatIsNotSupportedOrNotAPatternIsAnError) {
  EXPECT_EQ(TextPattern::Compile("(a").status().message(), "missing ): (a");
  EXPECT_EQ(TextPattern::Compile("a)").status().message(), "unexpected ): a)");
  EXPECT_EQ(TextPattern::Compile("[ab").status().message(), "missing ]: [ab");
  EXPECT_EQ(TextPattern::Compile("(a)\\1").status().message(), "invalid escape sequence: \\1");
  EXPECT_EQ(TextPattern::Compile("(?=a)").status().message(), "invalid perl operator: (?=");
  EXPECT_EQ(TextPattern::Compile("*(a)").status().message(),
            "no argument for repetition operator: *");
  EXPECT_EQ(TextPattern::Compile("ab").status().message(),
            "a regex extracts exactly one group, this one has 0");
  EXPECT_EQ(TextPattern::Compile("(a)(b)").status().message(),
            "a regex extracts exactly one group, this one has 2");
  // Counted repeats are RE2's too.
  PatternScratch scratch;
  EXPECT_EQ(*TextPattern::Compile("a{2}(b+)")->Search("aabbb", scratch), "bbb");
}

// Over bytes: an answer that is not UTF-8 is searched as it is, `.` taking any byte but \n.
TEST(TextPatternTest, SearchesBytesNotUtf8) {
  PatternScratch scratch;
  std::string text = "id=\xff\xfe-7;";
  EXPECT_EQ(*TextPattern::Compile("id=(.+);")->Search(text, scratch), "\xff\xfe-7");
  EXPECT_EQ(*TextPattern::Compile("a(.)b")->Search("a\xe9"
                                                   "b",
                                                   scratch),
            "\xe9");
  EXPECT_FALSE(TextPattern::Compile("a(.)b")->Search("a\nb", scratch).has_value());
  // A group the match took no part in is no value.
  EXPECT_FALSE(TextPattern::Compile("x|(y)")->Search("x", scratch).has_value());
}

// A search is linear in the text, whatever the pattern: one that backtracks exponentially in
// std::regex does not here.
TEST(TextPatternTest, ASearchIsLinearInTheText) {
  absl::StatusOr<TextPattern> q = TextPattern::Compile("((?:a*)*)b");
  ASSERT_TRUE(q.ok()) << q.status();
  PatternScratch scratch;
  std::string text(4096, 'a');
  EXPECT_FALSE(q->Search(text, scratch).has_value());
  EXPECT_EQ(*q->Search(text + "b", scratch), text);
}

}  // namespace
}  // namespace uringload::core
