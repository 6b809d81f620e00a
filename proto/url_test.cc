#include "proto/url.h"

#include <gtest/gtest.h>

namespace uringload::proto {
namespace {

TEST(UrlTest, ParsesHostPortAndTarget) {
  absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:8080/a/{i}?x=1#frag");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, 8080);
  EXPECT_EQ(url->target, "/a/{i}?x=1");
  EXPECT_EQ(url->HostHeader(), "127.0.0.1:8080");
}

TEST(UrlTest, DefaultsPortAndPath) {
  absl::StatusOr<Url> url = ParseUrl("http://Example.COM");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "example.com");
  EXPECT_EQ(url->port, 80);
  EXPECT_EQ(url->target, "/");
  EXPECT_EQ(url->HostHeader(), "example.com");
  EXPECT_EQ(ParseUrl("http://h?q=1")->target, "/?q=1");
}

TEST(UrlTest, ParsesPortRanges) {
  absl::StatusOr<Url> url = ParseUrl("http://127.0.0.1:8080-8083/{i}");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->port, 8080);
  EXPECT_EQ(url->last_port, 8083);
  EXPECT_EQ(url->HostHeader(8082), "127.0.0.1:8082");
  EXPECT_EQ(ParseUrl("http://h:81/")->last_port, 81);
  for (const char* bad : {"http://h:9-8/", "http://h:1-2000/", "http://h:8080-/", "http://h:-1/"}) {
    EXPECT_FALSE(ParseUrl(bad).ok()) << bad;
  }
}

TEST(UrlTest, ParsesIpv6Literal) {
  absl::StatusOr<Url> url = ParseUrl("http://[::1]:9000/x");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "::1");
  EXPECT_TRUE(url->host_is_ipv6_literal);
  EXPECT_EQ(url->HostHeader(), "[::1]:9000");
}

TEST(UrlTest, RejectsBadUrls) {
  for (const char* bad :
       {"ftp://x/", "127.0.0.1:80/", "http://", "http://:80/", "http://h:0/", "http://h:70000/",
        "http://h:x/", "http://[::1/", "http://u@h/", "http://h/a b"}) {
    EXPECT_FALSE(ParseUrl(bad).ok()) << bad;
  }
}

TEST(UrlTest, HttpsDefaultsToPort443) {
  absl::StatusOr<Url> https = ParseUrl("HTTPS://Example.com/x");
  ASSERT_TRUE(https.ok()) << https.status();
  EXPECT_TRUE(https->tls);
  EXPECT_EQ(https->port, 443);
  EXPECT_EQ(https->HostHeader(), "example.com");
  EXPECT_EQ(ParseUrl("https://h:8443/")->HostHeader(), "h:8443");
  EXPECT_FALSE(ParseUrl("http://h/")->tls);
}

}  // namespace
}  // namespace uringload::proto
