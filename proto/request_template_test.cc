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
  EXPECT_TRUE(tmpl.is_static());
  EXPECT_EQ(tmpl.static_bytes(),
            "GET /hello HTTP/1.1\r\nHost: h:81\r\nUser-Agent: uringload/0.1\r\n"
            "Accept: */*\r\n\r\n");
  std::vector<char> storage(tmpl.max_size());
  EXPECT_EQ(tmpl.RenderInto({.index = 7}, storage), tmpl.static_bytes());
}

TEST(RequestTemplateTest, RendersIndexDigitsAcrossWidths) {
  RequestSpec spec;
  spec.target = "/{i}/x?id={i}";
  spec.host_header = "h";
  RequestTemplate tmpl = MustBuild(spec);
  ASSERT_FALSE(tmpl.is_static());
  std::vector<char> storage(tmpl.max_size());
  auto expected = [](const std::string& i) {
    return "GET /" + i + "/x?id=" + i +
           " HTTP/1.1\r\nHost: h\r\nUser-Agent: uringload/0.1\r\nAccept: */*\r\n\r\n";
  };
  for (uint64_t index : {0ull, 9ull, 10ull, 11ull, 99ull, 5ull, 123456789ull, 123456788ull,
                         18446744073709551615ull}) {
    EXPECT_EQ(tmpl.RenderInto({.index = index}, storage), expected(std::to_string(index)));
  }
}

TEST(RequestTemplateTest, HeaderValuesAndBodyAreTemplatesAndTheLengthFollows) {
  RequestSpec spec;
  spec.target = "/a";
  spec.host_header = "h";
  spec.headers = {"X-Tag: t{i}"};
  spec.body = R"({"id":{i}})";
  spec.method = "POST";
  spec.keep_alive = false;
  RequestTemplate tmpl = MustBuild(spec);
  EXPECT_FALSE(tmpl.is_static());
  std::vector<char> storage(tmpl.max_size());
  for (uint64_t index : {7ull, 12345ull}) {
    std::string i = std::to_string(index);
    std::string body = R"({"id":)" + i + "}";
    EXPECT_EQ(tmpl.RenderInto({.index = index}, storage),
              "POST /a HTTP/1.1\r\nHost: h\r\nUser-Agent: uringload/0.1\r\nAccept: */*\r\n"
              "X-Tag: t" +
                  i + "\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\nConnection: close\r\n\r\n" + body);
  }
  // The longest rendering fits.
  std::vector<char> exact(tmpl.max_size());
  EXPECT_LE(tmpl.RenderInto({.index = UINT64_MAX}, exact).size(), tmpl.max_size());
}

TEST(RequestTemplateTest, HttpTwoFieldsAndBodyCarryTheTemplates) {
  RequestSpec spec;
  spec.target = "/u/{i}";
  spec.host_header = "h";
  spec.headers = {"X-Id: {i}"};
  spec.body = "{i}";
  RequestTemplate tmpl = MustBuild(spec);
  EXPECT_TRUE(tmpl.has_body());
  EXPECT_EQ(tmpl.path().Render({.index = 3}), "/u/3");
  std::string body(tmpl.body_max_size(), '\0');
  EXPECT_FALSE(tmpl.body_is_static());
  EXPECT_EQ(tmpl.RenderBody({.index = 3}, body), "3");
  ASSERT_EQ(tmpl.http2_fields().back().name, "x-id");
  EXPECT_EQ(tmpl.http2_fields().back().value.Render({.index = 3}), "3");
}

// A body that is not a template (a file's, by default) is its bytes: braces, NULs and all.
TEST(RequestTemplateTest, ABodyThatIsNoTemplateGoesOutAsItIs) {
  RequestSpec spec;
  spec.method = "PUT";
  spec.host_header = "h";
  spec.body = std::string("{i}\0{x}{{", 9);
  spec.body_is_template = false;
  RequestTemplate tmpl = MustBuild(spec);
  EXPECT_TRUE(tmpl.is_static());
  EXPECT_TRUE(tmpl.body_is_static());
  EXPECT_EQ(tmpl.static_body(), spec.body);
  std::string_view request = tmpl.static_bytes();
  EXPECT_EQ(request.substr(request.size() - 9), spec.body);
  EXPECT_NE(request.find("Content-Length: 9\r\n"), std::string_view::npos);
  spec.body_is_template = true;
  EXPECT_FALSE(RequestTemplate::Build(spec).ok());  // {x} is no placeholder it knows.
}

TEST(RequestTemplateTest, PlaceholderErrorsNameThePart) {
  RequestSpec spec;
  spec.target = "/a/{x}";
  EXPECT_EQ(RequestTemplate::Build(spec).status().message(),
            "URL path '/a/{x}': column 4: unknown placeholder {x} (known: i, rand, uuid, shard, "
            "worker; a data column needs --data)");
  spec.target = "/";
  spec.headers = {"X-A: {rand:9-1}"};
  EXPECT_EQ(RequestTemplate::Build(spec).status().message(),
            "header 'X-A': column 1: {rand:9-1} has LO above HI (9 > 1)");
  spec.headers = {};
  spec.body = "ab{uuid:1}";
  EXPECT_EQ(RequestTemplate::Build(spec).status().message(),
            "body: column 3: {uuid} takes no arguments, got {uuid:1}");
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
