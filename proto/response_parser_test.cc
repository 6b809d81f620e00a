#include "proto/response_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "proto/body_matcher.h"

namespace uringload::proto {
namespace {

using State = ResponseParser::State;

struct Outcome {
  State state = State::kNeedMore;
  size_t consumed = 0;
};

// Feeds `bytes` in two pieces split at `split`, as the network may deliver them.
Outcome FeedSplit(ResponseParser& parser, std::string_view bytes, size_t split) {
  Outcome out;
  for (std::string_view piece : {bytes.substr(0, split), bytes.substr(split)}) {
    if (piece.empty()) continue;
    ResponseParser::Result r = parser.Feed(piece);
    out.consumed += r.consumed;
    out.state = r.state;
    if (r.state != State::kNeedMore) break;
  }
  return out;
}

// Every split point must give the same complete response consuming exactly its bytes.
void ExpectCompleteAtEverySplit(std::string_view response, int status, bool keep_alive,
                                bool head = false) {
  for (size_t split = 0; split <= response.size(); ++split) {
    ResponseParser parser;
    parser.Start(head);
    Outcome out = FeedSplit(parser, response, split);
    ASSERT_EQ(out.state, State::kComplete) << "split " << split << ": " << response;
    EXPECT_EQ(out.consumed, response.size()) << "split " << split;
    EXPECT_EQ(parser.status_code(), status);
    EXPECT_EQ(parser.keep_alive(), keep_alive);
  }
}

// How far a response came, as the client times it: its head once the blank line after the
// headers arrived, its body once a byte of the body did (a chunk's size line is not one).
TEST(ResponseParserTest, SaysWhenTheHeadEndedAndTheBodyBegan) {
  for (bool matching : {false, true}) {
    ResponseParser parser;
    BodyMatcher matcher("x");
    if (matching) parser.SetBodyMatcher(&matcher);
    parser.Start(false);
    EXPECT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n").state,
              State::kNeedMore);
    EXPECT_FALSE(parser.head_complete());
    parser.Feed("\r\n3\r\n");
    EXPECT_TRUE(parser.head_complete());
    EXPECT_FALSE(parser.body_begun()) << matching;
    parser.Feed("a");
    EXPECT_TRUE(parser.body_begun()) << matching;
    EXPECT_EQ(parser.Feed("bc\r\n0\r\n\r\n").state, State::kComplete);
    parser.Start(false);  // The next response starts from nothing.
    EXPECT_FALSE(parser.head_complete());
    EXPECT_FALSE(parser.body_begun());
    EXPECT_EQ(parser.Feed("HTTP/1.1 204 No Content\r\n\r\n").state, State::kComplete);
    EXPECT_TRUE(parser.head_complete());
    EXPECT_FALSE(parser.body_begun());
  }
}

TEST(ResponseParserTest, ContentLength) {
  ExpectCompleteAtEverySplit("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, true);
}

TEST(ResponseParserTest, ChunkedWithExtensionsAndTrailers) {
  ExpectCompleteAtEverySplit(
      "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
      201, true);
}

TEST(ResponseParserTest, ConnectionCloseAndHttp10) {
  ExpectCompleteAtEverySplit("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
                             200, false);
  ExpectCompleteAtEverySplit("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, false);
  ExpectCompleteAtEverySplit(
      "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", 200, true);
}

TEST(ResponseParserTest, BodyUntilCloseCompletesOnFinish) {
  ResponseParser parser;
  parser.Start(false);
  EXPECT_EQ(parser.Feed("HTTP/1.0 200 OK\r\n\r\nsome body").state, State::kNeedMore);
  EXPECT_EQ(parser.Finish().state, State::kComplete);
  EXPECT_EQ(parser.status_code(), 200);
  EXPECT_FALSE(parser.keep_alive());
}

TEST(ResponseParserTest, EarlyCloseIsAnError) {
  ResponseParser parser;
  parser.Start(false);
  EXPECT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc").state, State::kNeedMore);
  EXPECT_EQ(parser.Finish().state, State::kError);
  ResponseParser silent;
  silent.Start(false);
  EXPECT_EQ(silent.Finish().state, State::kError);
  EXPECT_FALSE(silent.started());
}

TEST(ResponseParserTest, InterimResponsesAreSkipped) {
  ExpectCompleteAtEverySplit(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
      200, true);
}

TEST(ResponseParserTest, NoBodyForHead204And304) {
  ExpectCompleteAtEverySplit("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", 200, true,
                             /*head=*/true);
  ExpectCompleteAtEverySplit("HTTP/1.1 204 No Content\r\n\r\n", 204, true);
  ExpectCompleteAtEverySplit("HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 304, true);
}

TEST(ResponseParserTest, PipelinedLeftoversAreNotConsumed) {
  std::string first = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na";
  std::string second = "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nbc";
  std::string both = first + second;
  ResponseParser parser;
  parser.Start(false);
  ResponseParser::Result r = parser.Feed(both);
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(r.consumed, first.size());
  EXPECT_EQ(parser.status_code(), 200);
  parser.Start(false);
  r = parser.Feed(std::string_view(both).substr(first.size()));
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(r.consumed, second.size());
  EXPECT_EQ(parser.status_code(), 404);
}

TEST(ResponseParserTest, MalformedInputIsAnError) {
  for (std::string_view bad :
       {"garbage\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n", "HTTP/1.0 0 32OK\r\nContent-Length: 1\r\n\r\n",
        "HTTP/1.1 99 Low\r\n\r\n"}) {
    ResponseParser parser;
    parser.Start(false);
    EXPECT_EQ(parser.Feed(bad).state, State::kError) << bad;
    EXPECT_NE(parser.error(), nullptr);
    EXPECT_EQ(parser.Feed("more").state, State::kError);
  }
}

TEST(ResponseParserTest, OversizedHeadersAreAnError) {
  ResponseParser parser;
  parser.Start(false);
  ASSERT_EQ(parser.Feed("HTTP/1.1 200 OK\r\n").state, State::kNeedMore);
  std::string header = "X-Big: " + std::string(1000, 'a') + "\r\n";
  State state = State::kNeedMore;
  for (int i = 0; i < 100 && state == State::kNeedMore; ++i) state = parser.Feed(header).state;
  EXPECT_EQ(state, State::kError);
}

}  // namespace
}  // namespace uringload::proto

namespace uringload::proto {
namespace {

// A response whose header block (status line through the blank line) is exactly `size` bytes.
std::string ResponseWithHeaderBlock(size_t size) {
  std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n";
  std::string filler = "X-Fill: ";
  size_t fill = size - head.size() - filler.size() - 4;  // "\r\n" after it and the blank line.
  return head + filler + std::string(fill, 'f') + "\r\n\r\n" + "ok";
}

// The cap is exact whatever the network's chunking: 1 KiB buffers (as uringload receives) and
// the whole response at once.
TEST(ResponseParserTest, HeaderBlockCapIsExact) {
  for (size_t piece : {size_t{1024}, size_t{1} << 20}) {
    for (size_t size : {MessageFeeder::kMaxHeaderBytes, MessageFeeder::kMaxHeaderBytes + 1}) {
      std::string response = ResponseWithHeaderBlock(size);
      ASSERT_EQ(response.find("\r\n\r\n") + 4, size);
      ResponseParser parser;
      parser.Start(false);
      ResponseParser::Result r{State::kNeedMore, 0};
      for (size_t off = 0; off < response.size() && r.state == State::kNeedMore; off += piece) {
        r = parser.Feed(std::string_view(response).substr(off, piece));
      }
      bool fits = size <= MessageFeeder::kMaxHeaderBytes;
      EXPECT_EQ(r.state, fits ? State::kComplete : State::kError) << size << " in " << piece;
      if (!fits) {
        EXPECT_EQ(parser.error_kind(), MessageFeeder::Error::kHeadersTooLarge);
      }
    }
  }
}

// An interim 100 Continue does not count towards the final response's header block.
TEST(ResponseParserTest, InterimResponseHasItsOwnHeaderCount) {
  std::string response =
      "HTTP/1.1 100 Continue\r\n\r\n" + ResponseWithHeaderBlock(MessageFeeder::kMaxHeaderBytes);
  ResponseParser parser;
  parser.Start(false);
  ResponseParser::Result r = parser.Feed(response);
  EXPECT_EQ(r.state, State::kComplete);
  EXPECT_EQ(r.consumed, response.size());
  EXPECT_EQ(parser.status_code(), 200);
}

}  // namespace
}  // namespace uringload::proto

namespace uringload::proto {
namespace {

// With a matcher, each body is searched as it goes by: across chunks of a chunked body and
// across the pieces the network delivers, one verdict per response (a second response on the
// connection starts from nothing). Headers never count, only the body.
TEST(ResponseParserTest, ABodyCheckSeesTheTextAcrossChunksAndPieces) {
  BodyMatcher matcher("\"items\"");
  std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\n{\"ite\r\n5\r\nms\":[\r\n2\r\n]}\r\n0\r\n\r\n";
  std::string lacking = "HTTP/1.1 200 OK\r\nX-Items: \"items\"\r\nContent-Length: 2\r\n\r\n{}";
  for (size_t split = 1; split < chunked.size(); ++split) {
    ResponseParser parser;
    parser.SetBodyMatcher(&matcher);
    parser.Start(false);
    ASSERT_EQ(FeedSplit(parser, chunked, split).state, State::kComplete) << split;
    EXPECT_TRUE(parser.body_found()) << split;
    parser.Start(false);
    ASSERT_EQ(FeedSplit(parser, lacking, split % lacking.size()).state, State::kComplete);
    EXPECT_FALSE(parser.body_found()) << split;
  }
  ResponseParser unchecked;  // No matcher: bodies are skipped, nothing is found.
  unchecked.Start(false);
  ASSERT_EQ(FeedSplit(unchecked, chunked, 9).state, State::kComplete);
  EXPECT_FALSE(unchecked.body_found());
}

}  // namespace
}  // namespace uringload::proto
