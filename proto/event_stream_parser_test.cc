#include "proto/event_stream_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "proto/testing/event_stream_reference.h"

namespace uringload::proto {
namespace {

using testing::Event;
using testing::Reference;

// What the parser dispatches for `s` fed in pieces cut at `cuts` (ascending offsets).
std::vector<Event> Parse(std::string_view s, const std::vector<size_t>& cuts = {},
                         EventFormat format = EventFormat::kSse, size_t capacity = 1 << 16) {
  EventStreamParser parser(format);
  parser.SetDataCapacity(capacity);
  parser.Reset();
  std::vector<Event> events;
  size_t from = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(s.size());
  for (size_t to : ends) {
    std::string_view piece = s.substr(from, to - from);
    while (!piece.empty()) {
      EventStreamParser::Step step = parser.Feed(piece);
      if (step.event) {
        const StreamEvent& e = parser.event();
        EXPECT_EQ(e.data_size, e.data.size());
        events.push_back({std::string(e.type), std::string(e.data)});
      }
      piece.remove_prefix(step.consumed);
    }
    from = to;
  }
  return events;
}

TEST(EventStreamParserTest, DataLinesJoinWithLfAndABlankLineDispatches) {
  std::vector<Event> want = {{"", "a"}, {"", "b\nc"}, {"update", "d"}, {"", ""}};
  EXPECT_EQ(Parse("data: a\n\ndata: b\ndata: c\n\nevent: update\ndata: d\n\ndata\n\n"), want);
}

TEST(EventStreamParserTest, LinesEndInCrLfOrCrOrLf) {
  std::vector<Event> want = {{"", "a\nb"}, {"", "c"}, {"", "d"}};
  EXPECT_EQ(Parse("data: a\r\ndata: b\r\n\r\ndata: c\r\rdata: d\n\n"), want);
  // A CR at the end of a piece and its LF at the start of the next are one line end.
  EXPECT_EQ(Parse("data: a\r\n\r\n", {8}), (std::vector<Event>{{"", "a"}}));
  EXPECT_EQ(Parse("data: a\r\r\n", {8}), (std::vector<Event>{{"", "a"}}));
}

TEST(EventStreamParserTest, CommentsIdsRetriesAndUnknownFieldsAreNotData) {
  std::vector<Event> want = {{"", "x"}};
  EXPECT_EQ(Parse(": ping\nid: 7\nretry: 1000\nfoo: bar\ndatum: no\ndata: x\n\n"), want);
  EXPECT_EQ(Parse(": only a comment\n\n"), (std::vector<Event>{}));
  // A type without data is dropped at the blank line, and does not carry over.
  EXPECT_EQ(Parse("event: lost\n\ndata: y\n\n"), (std::vector<Event>{{"", "y"}}));
}

TEST(EventStreamParserTest, OneSpaceAfterTheColonIsDropped) {
  std::vector<Event> want = {{"", "x"}, {"", "x"}, {"", " x"}, {"", "x: y"}};
  EXPECT_EQ(Parse("data:x\n\ndata: x\n\ndata:  x\n\ndata: x: y\n\n"), want);
  EXPECT_EQ(Parse("data: x\n\n", {5}), (std::vector<Event>{{"", "x"}}));  // Split at the space.
}

TEST(EventStreamParserTest, ALeadingBomIsDroppedAndOnlyThere) {
  EXPECT_EQ(Parse("\xEF\xBB\xBF"
                  "data: a\n\n",
                  {1, 2}),
            (std::vector<Event>{{"", "a"}}));
  // Not at the start: part of the field's name, which is then no field.
  EXPECT_EQ(Parse("data: a\n\n\xEF\xBB\xBF"
                  "data: b\n\n"),
            (std::vector<Event>{{"", "a"}}));
  // Two bytes of a BOM, then a field: the bytes are the name's, so no data.
  EXPECT_EQ(Parse("\xEF\xBB"
                  "data: a\n\n",
                  {1}),
            (std::vector<Event>{}));
}

TEST(EventStreamParserTest, AnEventCutByTheEndIsPendingAndNeverDispatched) {
  EventStreamParser parser;
  parser.Reset();
  EventStreamParser::Step step = parser.Feed("data: a\n\ndata: b\n");
  EXPECT_TRUE(step.event);
  EXPECT_FALSE(parser.Feed(std::string_view("data: a\n\ndata: b\n").substr(step.consumed)).event);
  EXPECT_TRUE(parser.pending());
  parser.Reset();
  EXPECT_FALSE(parser.pending());
}

TEST(EventStreamParserTest, DoneAndTruncationAreSaidWithoutKeepingTheData) {
  EventStreamParser parser;
  parser.SetDataCapacity(0);
  parser.Reset();
  EventStreamParser::Step step = parser.Feed("data: [DONE]\n\n");
  ASSERT_TRUE(step.event);
  EXPECT_TRUE(parser.event().done);
  EXPECT_EQ(parser.event().data_size, 6u);
  EXPECT_TRUE(parser.event().truncated);
  EXPECT_EQ(parser.event().data, "");
  step = parser.Feed("data: [DONE] \n\n");
  EXPECT_FALSE(parser.event().done);
  parser.SetDataCapacity(4);
  parser.Reset();
  ASSERT_TRUE(parser.Feed("data: abcdef\n\n").event);
  EXPECT_EQ(parser.event().data, "abcd");
  EXPECT_EQ(parser.event().data_size, 6u);
  EXPECT_TRUE(parser.event().truncated);
}

TEST(EventStreamParserTest, NdjsonIsAnEventPerNonEmptyLine) {
  std::vector<Event> want = {{"", "{\"a\":1}"}, {"", "{\"b\":2}"}, {"", "{}"}};
  EXPECT_EQ(Parse("{\"a\":1}\n{\"b\":2}\r\n\n{}\n{\"cut", {}, EventFormat::kNdjson), want);
  EXPECT_EQ(Parse("{\"a\":1}\n{\"b\":2}\r\n\n{}\n{\"cut", {3, 9, 10}, EventFormat::kNdjson), want);
}

// A stream with every kind of line, split at every byte boundary, and at every pair of them:
// the same events as whole, and as the standard's steps give.
TEST(EventStreamParserTest, EveryCutGivesTheSameEventsAsTheStandard) {
  std::string stream =
      "\xEF\xBB\xBF: hi\r\nevent: add\r\ndata: {\"x\": 1}\r\ndata\r\n\r\nid: 3\rdata:2\r\r"
      "retry: 10\ndata:  three\n: c\n\ndata: [DONE]\n\n";
  std::vector<Event> want = Reference(stream);
  ASSERT_EQ(want.size(), 4u);
  for (size_t a = 0; a <= stream.size(); ++a) {
    ASSERT_EQ(Parse(stream, {a}), want) << "cut at " << a;
    for (size_t b = a; b <= stream.size(); b += 3) {
      ASSERT_EQ(Parse(stream, {a, b}), want) << "cuts at " << a << ", " << b;
    }
  }
}

// Random streams over the bytes that matter, cut at random: the standard's events, every time.
TEST(EventStreamParserTest, RandomStreamsMatchTheStandard) {
  const std::vector<std::string> pieces = {
      "data", "event", "id", ":", " ", "\r", "\n", "\r\n", "x", "dat", "\xEF\xBB\xBF", "retry"};
  std::mt19937 random(42);
  for (int round = 0; round < 5000; ++round) {
    std::string stream;
    int n = std::uniform_int_distribution<int>(0, 40)(random);
    for (int k = 0; k < n; ++k) {
      stream += pieces[std::uniform_int_distribution<size_t>(0, pieces.size() - 1)(random)];
    }
    std::vector<size_t> cuts;
    for (size_t at = 0; at < stream.size(); ++at) {
      if (std::uniform_int_distribution<int>(0, 4)(random) == 0) cuts.push_back(at);
    }
    ASSERT_EQ(Parse(stream, cuts), Reference(stream)) << "stream: " << stream;
  }
}

}  // namespace
}  // namespace uringload::proto
