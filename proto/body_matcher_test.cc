#include "proto/body_matcher.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "net/base/seeded_random.h"

namespace uringload::proto {
namespace {

bool Contains(const BodyMatcher& m, std::string_view body, size_t piece) {
  uint32_t state = 0;
  for (size_t at = 0; at < body.size(); at += piece) state = m.Feed(state, body.substr(at, piece));
  return state == BodyMatcher::kFound;
}

TEST(BodyMatcherTest, FindsTheTextWhereverThePiecesSplitIt) {
  BodyMatcher m("\"items\"");
  std::string body = R"({"user":"ann","items":[{"id":7}]})";
  for (size_t piece = 1; piece <= body.size(); ++piece) {
    EXPECT_TRUE(Contains(m, body, piece)) << piece;
  }
  EXPECT_FALSE(Contains(m, R"({"user":"ann","item":[]})", 3));
  EXPECT_FALSE(Contains(m, "", 1));
}

// A partial match that fails must fall back to the longest prefix still possible: "aab"
// inside "aaab", "abab" inside "ababab".
TEST(BodyMatcherTest, APartialMatchFallsBackWithoutMissingAnOverlap) {
  EXPECT_TRUE(Contains(BodyMatcher("aab"), "aaab", 1));
  EXPECT_TRUE(Contains(BodyMatcher("abab"), "abaabab", 2));
  EXPECT_TRUE(Contains(BodyMatcher("abcabd"), "abcabcabd", 4));
  EXPECT_FALSE(Contains(BodyMatcher("abcabd"), "abcabcab", 4));
  EXPECT_TRUE(Contains(BodyMatcher("x"), "yyx", 1));
}

// Against the obvious search, on random bodies over a two-letter alphabet (where overlaps
// abound), each fed in pieces of a random size.
TEST(BodyMatcherTest, AgreesWithFindOnRandomBodies) {
  SeededStream random(45);
  auto below = [&](uint64_t n) { return Below(random.Next(), n); };
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    std::string body;
    for (uint64_t i = 0, n = 1 + below(6); i < n; ++i) text += "ab"[below(2)];
    for (uint64_t i = 0, n = below(40); i < n; ++i) body += "ab"[below(2)];
    size_t piece = 1 + below(8);
    EXPECT_EQ(Contains(BodyMatcher(text), body, piece), body.find(text) != std::string::npos)
        << text << " in " << body << " by " << piece;
  }
}

TEST(BodyMatcherTest, OnceFoundStaysFound) {
  BodyMatcher m("ok");
  uint32_t state = m.Feed(0, "it is ok");
  EXPECT_EQ(state, BodyMatcher::kFound);
  EXPECT_EQ(m.Feed(state, "zzz"), BodyMatcher::kFound);
}

}  // namespace
}  // namespace uringload::proto
