#include "proto/json_string_decoder.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proto/json_pointer_scanner.h"
#include "proto/json_scan.h"

namespace uringload::proto {
namespace {

// A string's escaped contents and their UTF-8: pairs joined, lone halves U+FFFD.
struct Case {
  std::string escaped;
  std::string decoded;
};
const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {R"(\ud83d\ude00)", "\xF0\x9F\x98\x80"},
      {R"(\ud800)", "\xEF\xBF\xBD"},  // A high half at the end.
      {R"(a\ud800b)",
       "a\xEF\xBF\xBD"
       "b"},                              // Followed by a plain byte.
      {R"(\ud800\n)", "\xEF\xBF\xBD\n"},  // By a one-letter escape.
      {R"(\ud800\u0041)",
       "\xEF\xBF\xBD"
       "A"},                                                      // By a \u escape of no low half.
      {R"(\ud800\ud83d\ude00)", "\xEF\xBF\xBD\xF0\x9F\x98\x80"},  // By a pair.
      {R"(\udc00x)", "\xEF\xBF\xBDx"},                            // A low half alone.
      {R"(\u00e9\u20ac/\/)", "\xC3\xA9\xE2\x82\xAC//"},
  };
  return cases;
}

// The flat scanner (a --data NDJSON row) and the pointer scanner (a flow's JSON over a body
// fed a byte at a time) decode every case the same, to the same bytes.
TEST(JsonStringDecoderTest, EveryReaderDecodesLoneSurrogatesToTheReplacementCharacter) {
  for (const Case& c : Cases()) {
    std::string scratch;
    std::string_view flat;
    ASSERT_TRUE(DecodeJsonString(c.escaped, &scratch, &flat).ok()) << c.escaped;
    EXPECT_EQ(flat, c.decoded) << c.escaped;

    std::vector<std::string> pointers = {"/v"};
    absl::StatusOr<JsonPointerSet> set = JsonPointerSet::Compile(pointers);
    ASSERT_TRUE(set.ok());
    std::string buffer(64, '\0');
    std::vector<JsonCapture> captures = {{.buffer = std::span(buffer.data(), buffer.size())}};
    JsonPointerScanner scanner;
    scanner.Start(&*set, captures);
    std::string body = R"({"v": ")" + c.escaped + R"("})";
    for (char byte : body) scanner.Feed(std::string_view(&byte, 1));
    ASSERT_TRUE(captures[0].found) << c.escaped;
    EXPECT_EQ(captures[0].value(), c.decoded) << c.escaped;
  }
}

}  // namespace
}  // namespace uringload::proto
