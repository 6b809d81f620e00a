#include "proto/request_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace uringload::proto {
namespace {

using State = RequestParser::State;

TEST(RequestParserTest, EchoesLastPathSegmentAtEverySplit) {
  const std::string request = "GET /users/12345?x=/y HTTP/1.1\r\nHost: h\r\n\r\n";
  for (size_t split = 0; split <= request.size(); ++split) {
    RequestParser parser;
    RequestParser::Result a = parser.Feed(std::string_view(request).substr(0, split));
    size_t consumed = a.consumed;
    RequestParser::Result b = a;
    if (a.state == State::kNeedMore) {
      b = parser.Feed(std::string_view(request).substr(split));
      consumed += b.consumed;
    }
    ASSERT_EQ(b.state, State::kComplete) << split;
    EXPECT_EQ(consumed, request.size());
    EXPECT_EQ(parser.last_segment(), "12345");
    EXPECT_TRUE(parser.keep_alive());
  }
}

TEST(RequestParserTest, PipelinedRequestsOneAtATime) {
  std::string two =
      "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
      "POST /b/c HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nConnection: close\r\n\r\nxyz";
  RequestParser parser;
  RequestParser::Result r = parser.Feed(two);
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(parser.last_segment(), "a");
  EXPECT_TRUE(parser.keep_alive());
  r = parser.Feed(std::string_view(two).substr(r.consumed));
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(parser.last_segment(), "c");
  EXPECT_FALSE(parser.keep_alive());
}

TEST(RequestParserTest, Http10KeepAliveRules) {
  RequestParser parser;
  ASSERT_EQ(parser.Feed("GET / HTTP/1.0\r\n\r\n").state, State::kComplete);
  EXPECT_FALSE(parser.keep_alive());
  EXPECT_EQ(parser.last_segment(), "");
  parser.Reset();
  ASSERT_EQ(parser.Feed("GET /k HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").state,
            State::kComplete);
  EXPECT_TRUE(parser.keep_alive());
}

TEST(RequestParserTest, LongSegmentsAreCutAndGarbageIsAnError) {
  RequestParser parser;
  std::string long_path = "GET /" + std::string(100, 'z') + " HTTP/1.1\r\n\r\n";
  ASSERT_EQ(parser.Feed(long_path).state, State::kComplete);
  EXPECT_EQ(parser.last_segment().size(), RequestParser::kMaxEcho);
  parser.Reset();
  EXPECT_EQ(parser.Feed("NOT HTTP AT ALL\r\n\r\n").state, State::kError);
  EXPECT_NE(parser.error(), nullptr);
}

}  // namespace
}  // namespace uringload::proto

namespace uringload::proto {
namespace {

TEST(RequestParserTest, HeaderBlockCapIsExact) {
  for (size_t size : {MessageFeeder::kMaxHeaderBytes, MessageFeeder::kMaxHeaderBytes + 1}) {
    std::string head = "GET /x HTTP/1.1\r\nX-Fill: ";
    std::string request = head + std::string(size - head.size() - 4, 'f') + "\r\n\r\n";
    RequestParser parser;
    RequestParser::Result r{RequestParser::State::kNeedMore, 0};
    for (size_t off = 0; off < request.size() && r.state == RequestParser::State::kNeedMore;
         off += 1024) {
      r = parser.Feed(std::string_view(request).substr(off, 1024));
    }
    bool fits = size <= MessageFeeder::kMaxHeaderBytes;
    EXPECT_EQ(r.state, fits ? RequestParser::State::kComplete : RequestParser::State::kError);
    EXPECT_EQ(parser.error_kind(),
              fits ? MessageFeeder::Error::kNone : MessageFeeder::Error::kHeadersTooLarge);
  }
}

TEST(RequestParserTest, ExpectContinueIsSeenInAnyCaseAndSplit) {
  std::string head = "POST /u HTTP/1.1\r\nContent-Length: 3\r\nEXPECT: 100-Continue\r\n\r\n";
  for (size_t split = 1; split < head.size(); ++split) {
    RequestParser parser;
    parser.Feed(std::string_view(head).substr(0, split));
    RequestParser::Result r = parser.Feed(std::string_view(head).substr(split));
    ASSERT_EQ(r.state, RequestParser::State::kNeedMore);
    EXPECT_TRUE(parser.expects_continue()) << split;
    EXPECT_EQ(parser.Feed("abc").state, RequestParser::State::kComplete);
    EXPECT_FALSE(parser.expects_continue());
  }
  RequestParser plain;
  plain.Feed("POST /u HTTP/1.1\r\nContent-Length: 3\r\nExpectation: 100-continue\r\n\r\n");
  EXPECT_FALSE(plain.expects_continue());
}

}  // namespace
}  // namespace uringload::proto
