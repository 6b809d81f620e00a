// End-to-end: `run --flow` whose steps go to several origins, as a recorded browser session
// does (a site and its API, over http:// and https://, HTTP/1.1, HTTP/2 and HTTP/3). Each
// virtual user holds a connection per origin (--max-origins-per-user bounds them); its cookies
// follow it by host and path whatever the port. Exact counts of requests, connections and the
// servers' own; no timing, so these run beside other tests.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/shop.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tls_certs.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

// The shop's login and order on its site, the cart on its API (another port of the same
// host: the session cookie goes to both).
constexpr char kSiteAndApiFlow[] = R"(flow:
  - name: login
    request: POST http://127.0.0.1:SITE/login
    body: '{"user":"user{i}","pass":"pw-user{i}"}'
    expect: {status: 200}
    extract: {token: 'json:/token'}
  - name: cart
    request: GET http://127.0.0.1:API/cart
    headers: {Authorization: 'Bearer {token}'}
    expect: {status: 200}
    extract: {item: 'json:/items/0/id'}
  - name: order
    request: POST http://127.0.0.1:SITE/order
    body: '{"item":"{item}"}'
    expect: {status: 201}
)";

std::string SiteAndApi(const ShopServer& shop) {
  return absl::StrReplaceAll(kSiteAndApiFlow, {{"SITE", std::to_string(shop.port())},
                                               {"API", std::to_string(shop.api_port())}});
}

// 300 iterations by 10 users: each step at its origin, the cookie of the site's login carried
// to the API. A user holds a connection per origin (20 in all); with --max-origins-per-user 1
// its one connection moves: closed and opened to the cart's origin, then back to the order's,
// two connections per iteration.
TEST(FlowOriginsE2ETest, AUserHoldsAConnectionPerOriginAndItsCookiesFollowIt) {
  for (const auto& [max_origins, connections] : {std::pair{"6", 20u}, std::pair{"1", 610u}}) {
    ShopServer shop(3600, /*api_port=*/true);
    ASSERT_TRUE(shop.ok());
    TempFolder dir;
    std::string flow = dir.Write("shop.yaml", SiteAndApi(shop));
    RunOutput run = RunUringload({"--flow", flow, "-n", "300", "-c", "10", "--max-origins-per-user",
                                  max_origins, "--allow-saturated"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err << ErrorsOf(run.json);
    const FlatJson& j = run.json;
    EXPECT_EQ(JsonCount(j, "iterations.completed"), 300u) << max_origins;
    EXPECT_EQ(JsonCount(j, "requests.started"), 900u) << max_origins;
    EXPECT_EQ(JsonCount(j, "outcomes.ok"), 900u) << max_origins;
    EXPECT_EQ(JsonCount(j, "connections.opened"), connections) << max_origins;
    for (int step = 0; step < 3; ++step) {
      EXPECT_EQ(JsonCount(j, "by_target." + std::to_string(step) + ".outcomes.ok"), 300u);
    }
    FlatJson counts = shop.Stop();
    EXPECT_EQ(JsonCount(counts, "site_requests"), 600u) << max_origins;
    EXPECT_EQ(JsonCount(counts, "api_requests"), 300u) << max_origins;
    EXPECT_EQ(JsonCount(counts, "cart_ok"), 300u) << max_origins;
    EXPECT_EQ(JsonCount(counts, "order_ok"), 300u) << max_origins;
    EXPECT_EQ(JsonCount(counts, "cart_bad") + JsonCount(counts, "order_bad"), 0u);
  }
}

// Two `serve`s as two origins: https:// (HTTP/2 by ALPN) and http:// (HTTP/1.1) in one flow,
// and two HTTP/3 origins with --http3. Each step's answer feeds the next one's URL (serve
// answers /a/N with N); iterations 0-9 make a one-digit body for the last step's check.
TEST(FlowOriginsE2ETest, OriginsMayDifferInSchemeAndProtocol) {
  ASSERT_TRUE(SharedCert().ok());
  constexpr char kFlow[] = R"(flow:
  - name: first
    request: GET ONE/a/{i}
    extract: {n: 'json:'}
  - name: second
    request: GET TWO/b/{n}7
    expect: {status: 200}
    extract: {m: 'regex:^(\d+)7$'}
  - name: third
    request: GET ONE/c/{m}
    expect: {status: 200, header: {Content-Length: '1'}}
)";
  std::vector<std::string> tls = {"--tls-cert", SharedCert().cert(), "--tls-key",
                                  SharedCert().key()};
  for (bool http3 : {false, true}) {
    std::vector<std::string> one_flags = tls, two_flags;
    if (http3) {
      one_flags.push_back("--http3");
      two_flags = one_flags;
    } else {
      one_flags.push_back("--http2");
    }
    UringloadServer one(one_flags), two(two_flags);
    ASSERT_TRUE(one.ok() && two.ok());
    TempFolder dir;
    std::string flow = dir.Write(
        "two.yaml",
        absl::StrReplaceAll(kFlow, {{"ONE", "https://127.0.0.1:" + std::to_string(one.port())},
                                    {"TWO", (http3 ? "https://127.0.0.1:" : "http://127.0.0.1:") +
                                                std::to_string(two.port())}}));
    std::vector<std::string> args = {"--flow", flow, "-n",       "10",
                                     "-c",     "4",  "--cacert", SharedCert().cert()};
    if (http3) args.push_back("--http3");
    RunOutput run = RunUringload(args);
    ASSERT_EQ(run.process.exit_code, 0) << http3 << run.process.err << ErrorsOf(run.json);
    const FlatJson& j = run.json;
    EXPECT_EQ(JsonCount(j, "iterations.completed"), 10u) << http3;
    EXPECT_EQ(JsonCount(j, "outcomes.ok"), 30u) << http3;
    EXPECT_EQ(JsonCount(j, "connections.opened"), 8u) << http3;  // 4 users, 2 origins each.
    EXPECT_EQ(JsonCount(j, http3 ? "connections.protocols.h3" : "connections.protocols.h2"),
              http3 ? 8u : 4u);
    FlatJson first, second;
    ASSERT_EQ(one.Stop(&first), 0);
    ASSERT_EQ(two.Stop(&second), 0);
    EXPECT_EQ(JsonCount(first, "requests.answered"), 20u) << http3;
    EXPECT_EQ(JsonCount(second, "requests.answered"), 10u) << http3;
  }
}

// A recorded session whose cart is at the API's origin: har2flow keeps both origins asked
// for (not the CDN), and the flow replays the session, each user on a connection per origin.
TEST(FlowOriginsE2ETest, ARecordedSessionOverTwoOriginsReplays) {
  ShopServer shop(3600, /*api_port=*/true);
  ASSERT_TRUE(shop.ok());
  TempFolder dir;
  std::ifstream in(URINGLOAD_SOURCE_DIR "/tests/e2e/data/shop.har");
  std::string har((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string site = "http://127.0.0.1:" + std::to_string(shop.port());
  std::string api = "http://127.0.0.1:" + std::to_string(shop.api_port());
  har = absl::StrReplaceAll(har, {{"http://127.0.0.1:8080/cart", api + "/cart"},
                                  {"127.0.0.1:8080", "127.0.0.1:" + std::to_string(shop.port())}});
  std::string har_path = dir.Write("shop.har", har);
  ProcessResult converted =
      RunProcess({UringloadBinary(), "har2flow", har_path, "--origin", site, "--origin", api});
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  EXPECT_NE(converted.out.find("request: 'GET " + api + "/cart'"), std::string::npos)
      << converted.out;
  EXPECT_NE(converted.err.find("the session spans 3 origins: the flow keeps " + site + ", " + api +
                               " (4 requests, a connection per origin for each user) and skips "
                               "the 1"),
            std::string::npos)
      << converted.err;
  std::string flow = dir.Write("flow.yaml", converted.out);
  RunOutput run = RunUringload({"--flow", flow, "-n", "50", "-c", "5"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "iterations.completed"), 50u);
  EXPECT_EQ(JsonCount(run.json, "connections.opened"), 10u);
  FlatJson counts = shop.Stop();
  for (const char* ok : {"login_ok", "cart_ok", "order_ok", "view_ok", "api_requests"}) {
    EXPECT_EQ(JsonCount(counts, ok), 50u) << ok;
  }
  EXPECT_EQ(JsonCount(counts, "site_requests"), 150u);
}

// What several origins cannot do is refused with one line, exit 2, before any traffic.
TEST(FlowOriginsE2ETest, WhatSeveralOriginsCannotDoExitsTwo) {
  ShopServer shop(3600, /*api_port=*/true);
  ASSERT_TRUE(shop.ok());
  TempFolder dir;
  std::string flow = dir.Write("shop.yaml", SiteAndApi(shop));
  std::string range = dir.Write(
      "range.yaml",
      absl::StrReplaceAll(SiteAndApi(shop), {{std::to_string(shop.port()) + "/",
                                              std::to_string(shop.port()) + "-" +
                                                  std::to_string(shop.port() + 1) + "/"}}));
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {{"--flow", flow, "--max-origins-per-user", "0"}, "--max-origins-per-user"},
           {{"--flow", flow, "--max-origins-per-user", "65"}, "--max-origins-per-user"},
           {{"--flow", flow, "--unix", dir.Path("none.sock")}, "--unix goes to one server"},
           {{"--flow", range}, "one port per origin"},
           {{"--flow", flow, "--max-origins-per-user", "1", "--preconnect", "--start-at",
             std::to_string(absl::ToUnixSeconds(absl::Now()) + 2)},
            "--preconnect"}}) {
    RunOutput run = RunUringload(c.args);
    EXPECT_EQ(run.process.exit_code, 2) << c.says << run.process.err;
    EXPECT_NE(run.process.err.find(c.says), std::string::npos) << run.process.err;
  }
  FlatJson counts = shop.Stop();
  EXPECT_EQ(JsonCount(counts, "site_requests") + JsonCount(counts, "api_requests"), 0u);
}

}  // namespace
}  // namespace uringload::testing
