#include "core/flow/cookie_jar.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace uringload::core {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

std::string Line(const CookieJar& jar, std::string_view path, bool secure = false, int64_t now = 0,
                 std::string_view host = "shop.test") {
  std::array<char, CookieJar::LineBound(kDefaultMaxCookieBytes)> out{};
  return std::string(jar.RenderLine(host, path, secure, now, out));
}

TEST(CookieJarTest, StoresReplacesAndSendsBack) {
  CookieJar jar;
  EXPECT_TRUE(Line(jar, "/").empty());
  EXPECT_EQ(jar.Set("sid=abc; Path=/; HttpOnly", "shop.test", "/login", false, 0),
            CookieJar::SetResult::kStored);
  // Without a Path, a cookie's path is the request's up to its last '/'.
  EXPECT_EQ(jar.Set("lang = en ", "shop.test", "/account/login", false, 0),
            CookieJar::SetResult::kStored);
  EXPECT_EQ(Line(jar, "/cart"), "Cookie: sid=abc\r\n");
  EXPECT_EQ(Line(jar, "/account/orders"), "Cookie: sid=abc; lang=en\r\n");
  EXPECT_EQ(jar.Set("sid=def; Path=/", "shop.test", "/x", false, 0), CookieJar::SetResult::kStored);
  EXPECT_EQ(*jar.Get("sid", "shop.test", "/", false, 0), "def");
  EXPECT_EQ(jar.size(), 2u);
}

TEST(CookieJarTest, PathsAndDomainsMatchAsRfc6265Says) {
  CookieJar jar;
  jar.Set("a=1; Path=/api", "shop.test", "/", false, 0);
  jar.Set("b=2; Path=/api/", "shop.test", "/", false, 0);
  jar.Set("c=3; Domain=.shop.test", "www.shop.test", "/", false, 0);
  EXPECT_EQ(jar.Set("d=4; Domain=other.test", "shop.test", "/", false, 0),
            CookieJar::SetResult::kIgnored);
  EXPECT_EQ(jar.Set("novalue", "shop.test", "/", false, 0), CookieJar::SetResult::kIgnored);
  EXPECT_EQ(Line(jar, "/api"), "Cookie: a=1; c=3\r\n");
  EXPECT_EQ(Line(jar, "/api/x?q=1"), "Cookie: a=1; b=2; c=3\r\n");
  EXPECT_EQ(Line(jar, "/apix"), "Cookie: c=3\r\n");
  EXPECT_EQ(Line(jar, "/", false, 0, "www.shop.test"), "Cookie: c=3\r\n");
  EXPECT_EQ(Line(jar, "/api", false, 0, "other.test"), "");
}

TEST(CookieJarTest, SecureCookiesGoOnlyOverTls) {
  CookieJar jar;
  jar.Set("s=1; Secure", "shop.test", "/", false, 0);
  EXPECT_EQ(Line(jar, "/", false), "");
  EXPECT_EQ(Line(jar, "/", true), "Cookie: s=1\r\n");
}

TEST(CookieJarTest, MaxAgeAndExpiresEndACookie) {
  CookieJar jar;
  jar.Set("m=1; Max-Age=2; Expires=Wed, 01 Jan 2031 00:00:00 GMT", "shop.test", "/", false, 0);
  std::string past = absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT", absl::Now() - absl::Hours(1),
                                      absl::UTCTimeZone());
  std::string soon = absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT", absl::Now() + absl::Seconds(30),
                                      absl::UTCTimeZone());
  jar.Set("e=1; Expires=" + soon, "shop.test", "/", false, 0);
  EXPECT_EQ(Line(jar, "/", false, 1 * kSecond), "Cookie: m=1; e=1\r\n");
  EXPECT_EQ(Line(jar, "/", false, 2 * kSecond), "Cookie: e=1\r\n");  // Max-Age wins.
  EXPECT_EQ(Line(jar, "/", false, 40 * kSecond), "");
  // An expiry in the past deletes the cookie of the same name, domain and path.
  jar.Set("k=1", "shop.test", "/", false, 0);
  EXPECT_EQ(jar.Set("k=gone; Expires=" + past, "shop.test", "/", false, 0),
            CookieJar::SetResult::kDeleted);
  EXPECT_EQ(jar.Set("m=x; Max-Age=0", "shop.test", "/", false, 0), CookieJar::SetResult::kDeleted);
  EXPECT_FALSE(jar.Get("k", "shop.test", "/", false, 0).has_value());
}

TEST(CookieJarTest, WhatDoesNotFitIsRefusedAndFreedRoomIsTakenAgain) {
  // A cookie takes its name, value, domain and path: a=1 from shop.test at / is 12 bytes, and
  // a pool of 48 holds 4 of them.
  CookieJar jar(48);
  EXPECT_EQ(jar.Set("big=" + std::string(40, 'x'), "shop.test", "/", false, 0),
            CookieJar::SetResult::kRefused);
  EXPECT_EQ(jar.Set("a=1", "shop.test", "/", false, 0), CookieJar::SetResult::kStored);
  EXPECT_EQ(jar.Set("b=2", "shop.test", "/", false, 0), CookieJar::SetResult::kStored);
  EXPECT_EQ(jar.Set("c=3", "shop.test", "/", false, 0), CookieJar::SetResult::kStored);
  EXPECT_EQ(jar.Set("d=4", "shop.test", "/", false, 0), CookieJar::SetResult::kStored);
  EXPECT_EQ(jar.Set("e=5", "shop.test", "/", false, 0), CookieJar::SetResult::kRefused);
  // A longer b does not fit even once the others move together (the old b is gone then);
  // deleting a leaves a hole the next cookie takes once the live ones move.
  EXPECT_EQ(jar.Set("b=22", "shop.test", "/", false, 0), CookieJar::SetResult::kRefused);
  EXPECT_EQ(jar.Set("a=1; Max-Age=0", "shop.test", "/", false, 0), CookieJar::SetResult::kDeleted);
  EXPECT_EQ(jar.Set("e=5", "shop.test", "/", false, 0), CookieJar::SetResult::kStored);
  std::string three = Line(jar, "/");  // In the order of the slots they took.
  for (const char* c : {"c=3", "d=4", "e=5"}) EXPECT_NE(three.find(c), std::string::npos) << three;
  EXPECT_EQ(three.size(), std::string("Cookie: c=3; d=4; e=5\r\n").size());
  // At most kMaxCookies, however small.
  CookieJar wide(4096);
  for (size_t k = 0; k < CookieJar::kMaxCookies; ++k) {
    EXPECT_EQ(wide.Set("c" + std::to_string(k) + "=1", "shop.test", "/", false, 0),
              CookieJar::SetResult::kStored);
  }
  EXPECT_EQ(wide.Set("one=more", "shop.test", "/", false, 0), CookieJar::SetResult::kRefused);
  // An expired one's slot is taken again.
  wide.Clear();
  wide.Set("t=1; Max-Age=1", "shop.test", "/", false, 0);
  for (size_t k = 1; k < CookieJar::kMaxCookies; ++k) {
    wide.Set("c" + std::to_string(k) + "=1", "shop.test", "/", false, 0);
  }
  EXPECT_EQ(wide.Set("late=1", "shop.test", "/", false, 5 * kSecond),
            CookieJar::SetResult::kStored);
  std::array<char, CookieJar::LineBound(4096)> out{};
  std::string line(wide.RenderLine("shop.test", "/", false, 5 * kSecond, out));
  EXPECT_NE(line.find("late=1"), std::string::npos);
  EXPECT_EQ(line.find("t=1"), std::string::npos);
  EXPECT_EQ(std::count(line.begin(), line.end(), ';'), 15);
}

}  // namespace
}  // namespace uringload::core
