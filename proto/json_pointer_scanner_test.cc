#include "proto/json_pointer_scanner.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace uringload::proto {
namespace {

// The values at `pointers` in `body` fed in pieces of `piece` bytes ("<none>" when absent,
// "<overflow>" past 16 bytes, "<failed>" when the body is not JSON).
std::vector<std::string> Scan(std::vector<std::string> pointers, std::string_view body,
                              size_t piece = 1, size_t buffer = 16) {
  absl::StatusOr<JsonPointerSet> set = JsonPointerSet::Compile(pointers);
  EXPECT_TRUE(set.ok()) << set.status();
  std::vector<std::string> storage(pointers.size(), std::string(buffer, '\0'));
  std::vector<JsonCapture> captures;
  for (std::string& s : storage) captures.push_back({.buffer = std::span(s.data(), s.size())});
  JsonPointerScanner scanner;
  scanner.Start(&*set, captures);
  for (size_t at = 0; at < body.size(); at += piece) scanner.Feed(body.substr(at, piece));
  std::vector<std::string> values;
  for (const JsonCapture& c : captures) {
    if (scanner.failed() && !c.found) {
      values.push_back("<failed>");
    } else if (!c.found) {
      values.push_back("<none>");
    } else if (c.overflow) {
      values.push_back("<overflow>");
    } else {
      values.emplace_back(c.value());
    }
  }
  return values;
}

TEST(JsonPointerScannerTest, FindsStringsNumbersAndLiteralsInAnyPieces) {
  std::string body =
      R"({"token": "abc123", "n": -12.5e3, "ok": true, "none": null,
          "items": [{"id": 7}, {"id": "x\"y"}], "a/b": 1, "m~n": 2})";
  std::vector<std::string> want = {"abc123", "-12.5e3", "true", "null",  "7",
                                   "x\"y",   "1",       "2",    "<none>"};
  for (size_t piece : {1, 2, 3, 7, 1000}) {
    EXPECT_EQ(Scan({"/token", "/n", "/ok", "/none", "/items/0/id", "/items/1/id", "/a~1b", "/m~0n",
                    "/items/2/id"},
                   body, piece),
              want)
        << piece;
  }
}

TEST(JsonPointerScannerTest, ContainersAreTheirTextAndTheRootIsTheEmptyPointer) {
  EXPECT_EQ(Scan({"/items", "/items/0", ""}, R"({"items":[1,{"a":[]}]})", 1, 64),
            (std::vector<std::string>{R"([1,{"a":[]}])", "1", R"({"items":[1,{"a":[]}]})"}));
  EXPECT_EQ(Scan({""}, "42"), (std::vector<std::string>{"42"}));
  EXPECT_EQ(Scan({"/0", "/1"}, "[ ]"), (std::vector<std::string>{"<none>", "<none>"}));
}

TEST(JsonPointerScannerTest, KeysMatchWhole) {
  // A longer or shorter key of the same start is another member.
  EXPECT_EQ(Scan({"/id"}, R"({"idx": 1, "i": 2, "id": 3})"), (std::vector<std::string>{"3"}));
  // An index with a leading zero names no element.
  EXPECT_EQ(Scan({"/01", "/1"}, "[5, 6]"), (std::vector<std::string>{"<none>", "6"}));
  // The same key deeper, under another one, is not it; of a repeated key, the first counts.
  EXPECT_EQ(Scan({"/a"}, R"({"b": {"a": "y"}, "a": "x", "a": "z"})"),
            (std::vector<std::string>{"x"}));
}

TEST(JsonPointerScannerTest, EscapesAreDecoded) {
  EXPECT_EQ(Scan({"/s", "/k\"ey"}, R"({"s": "\u00e9\ud83d\ude00\n\/", "k\"ey": "v"})"),
            (std::vector<std::string>{"\xc3\xa9\xf0\x9f\x98\x80\n/", "v"}));
  EXPECT_EQ(Scan({"/s"}, R"({"s": "\ud83d!"})"), (std::vector<std::string>{"\xef\xbf\xbd!"}));
}

TEST(JsonPointerScannerTest, TooLongIsOverflowAndNotJsonIsFailed) {
  EXPECT_EQ(Scan({"/t"}, R"({"t": "0123456789abcdefX"})"),
            (std::vector<std::string>{"<overflow>"}));
  EXPECT_EQ(Scan({"/t"}, R"({"t": "0123456789abcdef"})"),
            (std::vector<std::string>{"0123456789abcdef"}));
  EXPECT_EQ(Scan({"/t"}, "<html>"), (std::vector<std::string>{"<failed>"}));
  EXPECT_EQ(Scan({"/t"}, R"({"t" 1})"), (std::vector<std::string>{"<failed>"}));
  EXPECT_EQ(Scan({"/t"}, R"({"a": [1 2]})"), (std::vector<std::string>{"<failed>"}));
  // Found before the error: kept.
  EXPECT_EQ(Scan({"/t"}, R"({"t": 1, ])"), (std::vector<std::string>{"1"}));
  std::string deep(100, '[');
  EXPECT_EQ(Scan({"/a"}, deep), (std::vector<std::string>{"<failed>"}));
}

TEST(JsonPointerScannerTest, BadPointersAreRefused) {
  EXPECT_FALSE(JsonPointerSet::Compile(std::vector<std::string>{"a"}).ok());
  EXPECT_FALSE(JsonPointerSet::Compile(std::vector<std::string>{"/a~2"}).ok());
  EXPECT_FALSE(JsonPointerSet::Compile(std::vector<std::string>(33, "/a")).ok());
  EXPECT_TRUE(JsonPointerSet::Compile(std::vector<std::string>(32, "/a")).ok());
}

TEST(JsonPointerScannerTest, AScannerIsReusedForTheNextBody) {
  absl::StatusOr<JsonPointerSet> set = JsonPointerSet::Compile(std::vector<std::string>{"/a"});
  ASSERT_TRUE(set.ok());
  std::array<char, 8> buffer{};
  std::array<JsonCapture, 1> captures = {JsonCapture{.buffer = buffer}};
  JsonPointerScanner scanner;
  scanner.Start(&*set, captures);
  scanner.Feed("<html>");
  EXPECT_TRUE(scanner.failed());
  scanner.Start(&*set, captures);
  scanner.Feed(R"({"a":"b"})");
  EXPECT_FALSE(scanner.failed());
  EXPECT_EQ(captures[0].value(), "b");
}

}  // namespace
}  // namespace uringload::proto
