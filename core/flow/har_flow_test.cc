#include "core/flow/har_flow.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "core/flow/flow_file.h"

namespace uringload::core {
namespace {

std::string ShopHar() {
  std::ifstream in(URINGLOAD_SOURCE_DIR "/tests/e2e/data/shop.har");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A recorded login, cart, order and the order's page at its absolute Location: the token, the
// item and the order's path the answers gave become extractions and variables; the session cookie
// is the jar's, the other one is kept; the headers the client sets itself and Accept-Encoding are
// dropped; a data: URL is skipped.
TEST(HarToFlowTest, ValuesFromEarlierAnswersBecomeExtractions) {
  absl::StatusOr<std::string> flow = HarToFlow(ShopHar(), "shop.har");
  ASSERT_TRUE(flow.ok()) << flow.status();
  EXPECT_EQ(*flow,
            "# skipped log.entries[3]: CONNECT https://cdn.example.test:443: a proxy tunnel the "
            "browser opened, not a request\n"
            "# skipped log.entries[4]: GET https://cdn.example.test/app.js: another origin than "
            "http://127.0.0.1:8080 (har2flow --origin https://cdn.example.test keeps it too, "
            "--all-origins every one)\n"
            "# skipped log.entries[6]: GET data:image/png;base64,AAAA: not an http:// or https:// "
            "URL\n"
            "flow:\n"
            "  - name: login\n"
            "    request: 'POST http://127.0.0.1:8080/login'\n"
            "    headers:\n"
            "      'Content-Type': 'application/json'\n"
            "    body: '{\"user\":\"user7\",\"pass\":\"pw-user7\"}'\n"
            "    expect: {status: 200}\n"
            "    extract:\n"
            "      token: 'json:/token'\n"
            "  - name: cart\n"
            "    request: 'GET http://127.0.0.1:8080/cart'\n"
            "    headers:\n"
            "      'Authorization': 'Bearer {token}'\n"
            "      'Cookie': 'theme=dark'\n"
            "    expect: {status: 200}\n"
            "    extract:\n"
            "      id: 'json:/items/0/id'\n"
            "  - name: order\n"
            "    request: 'POST http://127.0.0.1:8080/order'\n"
            "    body: '{\"item\":\"{id}\"}'\n"
            "    expect: {status: 201}\n"
            "    extract:\n"
            "      Location: 'header:Location:^https?://[^/]*/(.*)$'\n"
            "  - name: item-424242\n"
            "    request: 'GET http://127.0.0.1:8080/{Location}'\n"
            "    expect: {status: 200}\n");
  // It is a flow file as uringload reads them.
  absl::StatusOr<FlowFile> parsed = ParseFlowFile(*flow, "flow.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flows[0].steps.size(), 4u);
}

TEST(HarToFlowTest, LiteralBracesStayLiteralAndNamesStayUnique) {
  std::string har = R"({"log": {"entries": [
    {"request": {"method": "POST", "url": "https://h.test/a/x", "headers": [],
                 "postData": {"text": "{i} and {rand:1-2} stay as they were"}},
     "response": {"status": 200, "headers": [{"name": "X-Csrf-Token", "value": "csrf-123456789"}],
                  "content": {"text": "not json"}}},
    {"request": {"method": "GET", "url": "https://h.test/b/x?c=csrf-123456789",
                 "headers": [{"name": "X-Csrf-Token", "value": "csrf-123456789"}]},
     "response": {"status": 204, "headers": [], "content": {}}}]}})";
  absl::StatusOr<std::string> flow = HarToFlow(har, "h.har");
  ASSERT_TRUE(flow.ok()) << flow.status();
  EXPECT_NE(flow->find("body: '{{i} and {{rand:1-2} stay as they were'"), std::string::npos)
      << *flow;
  EXPECT_NE(flow->find("  - name: x-2\n"), std::string::npos) << *flow;
  EXPECT_NE(flow->find("request: 'GET https://h.test/b/x?c={X_Csrf_Token}'"), std::string::npos)
      << *flow;
  EXPECT_NE(flow->find("X_Csrf_Token: 'header:X-Csrf-Token'"), std::string::npos) << *flow;
  ASSERT_TRUE(ParseFlowFile(*flow, "flow.yaml").ok()) << ParseFlowFile(*flow, "f").status();
}

TEST(HarToFlowTest, WhatIsNotAHarIsAnError) {
  EXPECT_EQ(HarToFlow("{", "x.har").status().message(), "x.har: not JSON");
  EXPECT_EQ(HarToFlow("{\"log\": {}}", "x.har").status().message(),
            "x.har: not a HAR file: no log.entries");
  EXPECT_EQ(HarToFlow("{\"log\": {\"entries\": []}}", "x.har").status().message(),
            "x.har: no request of the application in log.entries (0 skipped)");
  // HAR 1.2 requires a response in every entry: the message says which entry lacks what.
  EXPECT_EQ(HarToFlow(R"({"log": {"entries": [
                {"request": {"method": "GET", "url": "http://a.test/", "headers": []},
                 "response": {"status": 200}},
                {"request": {"method": "GET", "url": "http://a.test/b", "headers": []}}]}})",
                      "x.har")
                .status()
                .message(),
            "x.har: log.entries[1] has no \"response\" object (HAR 1.2 requires a request and a "
            "response in every entry)");
  EXPECT_EQ(HarToFlow(R"({"log": {"entries": [{"request": {"url": "http://a.test/"},
                                             "response": {"status": 200}}]}})",
                      "x.har")
                .status()
                .message(),
            "x.har: log.entries[0].request has no \"method\" string");
}

// A proxy tunnel, a CORS preflight, a request that got no response and a data: URL are no
// requests of the application: each is left out, and said so in a comment; the flow that is
// left runs.
TEST(HarToFlowTest, EntriesThatAreNoRequestOfTheApplicationAreSkippedAndNamed) {
  std::string har = R"({"log": {"entries": [
    {"request": {"method": "CONNECT", "url": "https://a.test:443", "headers": []},
     "response": {"status": 200, "headers": []}},
    {"request": {"method": "OPTIONS", "url": "https://a.test/api",
                 "headers": [{"name": "Access-Control-Request-Method", "value": "POST"}]},
     "response": {"status": 204, "headers": []}},
    {"request": {"method": "GET", "url": "https://a.test/gone", "headers": []},
     "response": {"status": 0, "headers": []}},
    {"request": {"method": "GET", "url": "data:image/png;base64,AAAA", "headers": []},
     "response": {"status": 200, "headers": []}},
    {"request": {"method": "GET", "url": "https://a.test/api", "headers": []},
     "response": {"status": 200, "headers": []}}]}})";
  absl::StatusOr<std::string> flow = HarToFlow(har, "x.har");
  ASSERT_TRUE(flow.ok()) << flow.status();
  EXPECT_EQ(*flow,
            "# skipped log.entries[0]: CONNECT https://a.test:443: a proxy tunnel the browser "
            "opened, not a request\n"
            "# skipped log.entries[1]: OPTIONS https://a.test/api: a CORS preflight the browser "
            "sends by itself\n"
            "# skipped log.entries[2]: GET https://a.test/gone: no response was recorded (status "
            "0: blocked or aborted)\n"
            "# skipped log.entries[3]: GET data:image/png;base64,AAAA: not an http:// or https:// "
            "URL\n"
            "flow:\n"
            "  - name: api\n"
            "    request: 'GET https://a.test/api'\n"
            "    expect: {status: 200}\n");
  absl::StatusOr<FlowFile> parsed = ParseFlowFile(*flow, "x.yaml");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
}

// A Location that is an absolute URL, followed by the next request: the path is what varies
// and is extracted from the header; the URL keeps its scheme and host, so the flow runs.
TEST(HarToFlowTest, AnAbsoluteLocationBecomesThePathOfTheNextUrl) {
  std::string har = R"({"log": {"entries": [
    {"request": {"method": "POST", "url": "https://a.test/orders", "headers": []},
     "response": {"status": 201, "headers": [
       {"name": "Location", "value": "https://a.test/orders/8f3a9b2c?v=2"}]}},
    {"request": {"method": "GET", "url": "https://a.test/orders/8f3a9b2c?v=2", "headers": []},
     "response": {"status": 200, "headers": []}}]}})";
  absl::StatusOr<std::string> flow = HarToFlow(har, "x.har");
  ASSERT_TRUE(flow.ok()) << flow.status();
  EXPECT_EQ(*flow,
            "flow:\n"
            "  - name: orders\n"
            "    request: 'POST https://a.test/orders'\n"
            "    expect: {status: 201}\n"
            "    extract:\n"
            "      Location: 'header:Location:^https?://[^/]*/(.*)$'\n"
            "  - name: 8f3a9b2c\n"
            "    request: 'GET https://a.test/{Location}'\n"
            "    expect: {status: 200}\n");
  absl::StatusOr<FlowFile> parsed = ParseFlowFile(*flow, "x.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->flows[0].steps[0].extract.size(), 1u);
  EXPECT_EQ(parsed->flows[0].steps[0].extract[0].what, "Location");
  EXPECT_EQ(parsed->flows[0].steps[0].extract[0].pattern, "^https?://[^/]*/(.*)$");
}

// A session over several origins (the site, its API, a CDN): the flow keeps the first
// request's, those asked for, or every one; it names each request to the others in a comment
// and the note says so. The default port is no part of an origin.
TEST(HarToFlowTest, ASessionOverSeveralOriginsKeepsThoseAskedForAndSaysSo) {
  std::string har = R"({"log": {"entries": [
    {"request": {"method": "GET", "url": "https://Shop.test:443/", "headers": []},
     "response": {"status": 200, "headers": []}},
    {"request": {"method": "GET", "url": "https://cdn.test/app.js", "headers": []},
     "response": {"status": 200, "headers": []}},
    {"request": {"method": "GET", "url": "https://api.shop.test/items", "headers": []},
     "response": {"status": 200, "headers": []}},
    {"request": {"method": "GET", "url": "https://shop.test/cart", "headers": []},
     "response": {"status": 200, "headers": []}}]}})";
  std::string note;
  absl::StatusOr<std::string> flow = HarToFlow(har, "x.har", {}, &note);
  ASSERT_TRUE(flow.ok()) << flow.status();
  EXPECT_EQ(*flow,
            "# skipped log.entries[1]: GET https://cdn.test/app.js: another origin than "
            "https://shop.test (har2flow --origin https://cdn.test keeps it too, --all-origins "
            "every one)\n"
            "# skipped log.entries[2]: GET https://api.shop.test/items: another origin than "
            "https://shop.test (har2flow --origin https://api.shop.test keeps it too, "
            "--all-origins every one)\n"
            "flow:\n"
            "  - name: root\n"
            "    request: 'GET https://Shop.test:443/'\n"
            "    expect: {status: 200}\n"
            "  - name: cart\n"
            "    request: 'GET https://shop.test/cart'\n"
            "    expect: {status: 200}\n");
  EXPECT_EQ(note,
            "the session spans 3 origins: the flow keeps https://shop.test (2 requests, a "
            "connection per origin for each user) and skips the 2 to the others, each named in a "
            "# skipped comment (--origin ORIGIN keeps one more, --all-origins every one)");
  // The site and its API, not the CDN.
  absl::StatusOr<std::string> two =
      HarToFlow(har, "x.har", {.keep = {"https://shop.test", "https://API.shop.test:443"}}, &note);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_NE(two->find("    request: 'GET https://api.shop.test/items'\n"), std::string::npos)
      << *two;
  EXPECT_NE(two->find("    request: 'GET https://shop.test/cart'\n"), std::string::npos) << *two;
  EXPECT_NE(two->find("# skipped log.entries[1]: GET https://cdn.test/app.js: another origin "
                      "than https://shop.test, https://api.shop.test"),
            std::string::npos)
      << *two;
  EXPECT_NE(note.find("keeps https://shop.test, https://api.shop.test (3 requests"),
            std::string::npos)
      << note;
  absl::StatusOr<std::string> all = HarToFlow(har, "x.har", {.keep = {}, .all = true}, &note);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->find("# skipped"), std::string::npos) << *all;
  EXPECT_NE(all->find("    request: 'GET https://cdn.test/app.js'\n"), std::string::npos) << *all;
  EXPECT_EQ(note,
            "the session spans 3 origins: the flow keeps https://shop.test, https://cdn.test, "
            "https://api.shop.test (4 requests, a connection per origin for each user)");
  // Every kept origin runs: the flow compiles with its steps at three origins.
  absl::StatusOr<FlowFile> parsed = ParseFlowFile(*all, "x.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->flows[0].steps.size(), 4u);
  EXPECT_EQ(HarToFlow(har, "x.har", {.keep = {"http://shop.test"}}).status().message(),
            "x.har: no request to http://shop.test (the session's origins: https://shop.test (2), "
            "https://cdn.test (1), https://api.shop.test (1))");
}

}  // namespace
}  // namespace uringload::core
