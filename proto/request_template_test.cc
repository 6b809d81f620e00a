#include "proto/request_template.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace uringload::proto {
namespace {

RequestTemplate MustBuild(const RequestSpec& spec) {
  absl::StatusOr<RequestTemplate> tmpl = RequestTemplate::Build(spec);
  EXPECT_TRUE(tmpl.ok()) << tmpl.status();
  return *std::move(tmpl);
}

TEST(RequestTemplateTest, BuildsPlainGet) {
  RequestSpec spec;
  spec.target = "/hello";
  spec.host_header = "h:81";
  RequestTemplate tmpl = MustBuild(spec);
  EXPECT_FALSE(tmpl.has_index());
  EXPECT_EQ(tmpl.static_bytes(),
            "GET /hello HTTP/1.1\r\nHost: h:81\r\nUser-Agent: uringload/0.1\r\n"
            "Accept: */*\r\n\r\n");
  std::vector<char> storage(tmpl.max_size());
  EXPECT_EQ(tmpl.RenderInto(7, storage), tmpl.static_bytes());
}

TEST(RequestTemplateTest, RendersIndexDigitsAcrossWidths) {
  RequestSpec spec;
  spec.target = "/{i}/x?id={i}";
  spec.host_header = "h";
  RequestTemplate tmpl = MustBuild(spec);
  ASSERT_TRUE(tmpl.has_index());
  std::vector<char> storage(tmpl.max_size());
  auto expected = [](const std::string& i) {
    return "GET /" + i + "/x?id=" + i +
           " HTTP/1.1\r\nHost: h\r\nUser-Agent: uringload/0.1\r\nAccept: */*\r\n\r\n";
  };
  for (uint64_t index : {0ull, 9ull, 10ull, 11ull, 99ull, 5ull, 123456789ull, 123456788ull,
                         18446744073709551615ull}) {
    EXPECT_EQ(tmpl.RenderInto(index, storage), expected(std::to_string(index)));
  }
}

TEST(RequestTemplateTest, PlaceholderOnlyInTarget) {
  RequestSpec spec;
  spec.target = "/a";
  spec.headers = {"X-Tag: {i}"};
  spec.body = "{i}";
  spec.method = "POST";
  RequestTemplate tmpl = MustBuild(spec);
  EXPECT_FALSE(tmpl.has_index());
  EXPECT_NE(tmpl.static_bytes().find("X-Tag: {i}\r\n"), std::string::npos);
  EXPECT_NE(tmpl.static_bytes().find("Content-Length: 3\r\n\r\n{i}"), std::string::npos);
}

TEST(RequestTemplateTest, HeadersBodyAndClose) {
  RequestSpec spec;
  spec.method = "PUT";
  spec.host_header = "h";
  spec.headers = {"Host: other", "User-Agent: me", "X-A:   b  "};
  spec.body = "hello";
  spec.keep_alive = false;
  RequestTemplate tmpl = MustBuild(spec);
  EXPECT_EQ(tmpl.static_bytes(),
            "PUT / HTTP/1.1\r\nAccept: */*\r\nHost: other\r\nUser-Agent: me\r\nX-A: b\r\n"
            "Content-Length: 5\r\nConnection: close\r\n\r\nhello");
  spec.method = "HEAD";
  spec.body.clear();
  EXPECT_TRUE(MustBuild(spec).is_head());
}

TEST(RequestTemplateTest, RejectsBadInput) {
  for (std::vector<std::string> headers :
       std::vector<std::vector<std::string>>{{"NoColon"},
                                             {"Bad Name: x"},
                                             {": x"},
                                             {"X: a\nb"},
                                             {"Content-Length: 5"},
                                             {"transfer-encoding: chunked"},
                                             {"Connection: close"}}) {
    RequestSpec spec;
    spec.headers = headers;
    EXPECT_FALSE(RequestTemplate::Build(spec).ok()) << headers[0];
  }
  RequestSpec spec;
  spec.method = "GE T";
  EXPECT_FALSE(RequestTemplate::Build(spec).ok());
}

}  // namespace
}  // namespace uringload::proto
