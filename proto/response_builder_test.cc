#include "proto/response_builder.h"

#include <gtest/gtest.h>

#include "proto/response_parser.h"

namespace uringload::proto {
namespace {

TEST(ResponseBuilderTest, BuildsResponsesOurParserAccepts) {
  EXPECT_EQ(BuildResponse(200, true, "42"),
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n42");
  for (int status : {200, 404, 503, 299}) {
    for (bool keep_alive : {true, false}) {
      ResponseParser parser;
      parser.Start(false);
      std::string bytes = BuildResponse(status, keep_alive, "body");
      ResponseParser::Result r = parser.Feed(bytes);
      ASSERT_EQ(r.state, ResponseParser::State::kComplete);
      EXPECT_EQ(r.consumed, bytes.size());
      EXPECT_EQ(parser.status_code(), status);
      EXPECT_EQ(parser.keep_alive(), keep_alive);
    }
  }
  ResponseParser parser;
  parser.Start(false);
  EXPECT_EQ(parser.Feed(kMalformedResponse).state, ResponseParser::State::kError);
}

}  // namespace
}  // namespace uringload::proto
