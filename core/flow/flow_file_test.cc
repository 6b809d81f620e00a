#include "core/flow/flow_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace uringload::core {
namespace {

// The example of docs/flows.md, as a user writes it.
constexpr char kShop[] = R"(flow:
  - name: login
    request: POST http://127.0.0.1:8080/login
    headers: {Content-Type: application/json}
    body: '{"user":"{user}","pass":"{pass}"}'
    expect: {status: 200}
    extract: {token: 'json:/token'}
  - name: cart
    request: GET http://127.0.0.1:8080/cart
    headers: {Authorization: 'Bearer {token}'}
    expect: {status: 200, body_contains: '"items"'}
    extract: {item: 'json:/items/0/id'}
  - name: order
    request: POST http://127.0.0.1:8080/order
    body: '{"item":"{item}"}'
    expect: {status: 201}
)";

TEST(FlowFileTest, TheShopFlowParsesWithItsDataColumns) {
  std::vector<std::string> columns = {"user", "pass"};
  absl::StatusOr<FlowFile> file = ParseFlowFile(kShop, "shop.yaml", columns);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->flows.size(), 1u);
  const std::vector<FlowStep>& steps = file->flows[0].steps;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].name, "login");
  EXPECT_EQ(steps[0].method, "POST");
  EXPECT_EQ(steps[0].url, "http://127.0.0.1:8080/login");
  EXPECT_EQ(steps[0].line, 2);
  ASSERT_EQ(steps[0].headers.size(), 1u);
  EXPECT_EQ(steps[0].headers[0].first, "Content-Type");
  EXPECT_EQ(*steps[0].body, R"({"user":"{user}","pass":"{pass}"})");
  EXPECT_TRUE((*steps[0].expect.statuses)[200]);
  EXPECT_EQ(steps[0].expect.statuses->count(), 1u);
  ASSERT_EQ(steps[0].extract.size(), 1u);
  EXPECT_EQ(steps[0].extract[0].variable, "token");
  EXPECT_EQ(steps[0].extract[0].from, ExtractFrom::kJson);
  EXPECT_EQ(steps[0].extract[0].what, "/token");
  EXPECT_EQ(*steps[1].expect.body_contains, "\"items\"");
  EXPECT_EQ(steps[2].line, 13);
  EXPECT_TRUE((*steps[2].expect.statuses)[201]);
}

TEST(FlowFileTest, SeveralFlowsWithWeightsThinkAndEveryKindOfCheckAndExtraction) {
  absl::StatusOr<FlowFile> file = ParseFlowFile(R"(flows:
  - name: browse
    weight: 3
    steps:
      - request: GET http://h/a/{i}
        think: uniform:1s-3s
        expect: {status: [200, 3xx], json: {/ok: 'true'}, header: {X-Kind: a}}
        extract: {c: 'cookie:session', h: 'header:ETag', r: 'regex:id=(\d+)'}
      - request: GET http://h/b/{r}
        headers: {If-None-Match: '{h}'}
        think: 250ms
  - name: buy
    steps:
      - request: POST https://h/buy
)",
                                                "f.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->flows.size(), 2u);
  EXPECT_EQ(file->flows[0].weight, 3u);
  EXPECT_EQ(file->flows[1].weight, 1u);
  const FlowStep& first = file->flows[0].steps[0];
  EXPECT_EQ(first.name, "step1");
  EXPECT_EQ(first.think->low, absl::Seconds(1));
  EXPECT_EQ(first.think->high, absl::Seconds(3));
  EXPECT_EQ(first.expect.statuses->count(), 101u);
  ASSERT_EQ(first.expect.json.size(), 1u);
  EXPECT_EQ(first.expect.json[0].first, "/ok");
  ASSERT_EQ(first.extract.size(), 3u);
  EXPECT_EQ(first.extract[0].from, ExtractFrom::kCookie);
  EXPECT_EQ(first.extract[1].from, ExtractFrom::kHeader);
  EXPECT_EQ(first.extract[2].from, ExtractFrom::kRegex);
  EXPECT_EQ(first.extract[2].what, "id=(\\d+)");
  EXPECT_EQ(file->flows[0].steps[1].think->low, absl::Milliseconds(250));
}

// Every mistake is one error that names the file and the line to look at.
TEST(FlowFileTest, MistakesNameTheFileAndLine) {
  struct Case {
    const char* yaml;
    const char* says;
  };
  for (const Case& c : {
           Case{"flow:\n  - request: GET http://h/\n    expct: {status: 200}\n",
                "f.yaml:3: unknown key `expct` in a step"},
           Case{"flow:\n  - request: GET http://h/{token}\n  - request: GET http://h/\n"
                "    extract: {token: 'json:/t'}\n",
                "f.yaml:2: the URL: {token} is used before a step extracts it (line 3)"},
           Case{"flow:\n  - request: GET http://h/\n    extract: {t: 'json:token'}\n",
                "f.yaml:3: bad JSON pointer 'token'"},
           Case{"flow:\n  - request: GET http://h/\n    extract: {t: 'regex:(a'}\n",
                "f.yaml:3: bad regex '(a'"},
           Case{"flow:\n  - request: GET http://h/\n    extract: {t: 'regex:a(b)(c)'}\n",
                "f.yaml:3: bad regex 'a(b)(c)': a regex extracts exactly one group"},
           Case{"flow:\n  - request: GET http://h/\n    body: '{nope}'\n", "f.yaml:3: the body: "},
           Case{"flow:\n  - request: http://h/\n", "f.yaml:2: a request is `METHOD URL`"},
           Case{"flow:\n  - request: GET h/x\n", "f.yaml:2: the URL must start with"},
           Case{"flow:\n  - request: GET http://h/\n    expect: {status: 20x}\n",
                "f.yaml:3: '20x' is not a status code"},
           Case{"flow:\n  - request: GET http://h/\n    think: soon\n", "f.yaml:3: "},
           Case{"flows:\n  - name: a\n    weight: 0\n    steps:\n      - request: GET http://h/\n",
                "f.yaml:3: a weight is a whole number"},
           Case{"flow: [\n", "f.yaml:"},
           Case{"steps:\n  - request: GET http://h/\n", "f.yaml:1: unknown key `steps`"},
       }) {
    absl::StatusOr<FlowFile> file = ParseFlowFile(c.yaml, "f.yaml");
    ASSERT_FALSE(file.ok()) << c.yaml;
    EXPECT_EQ(file.status().message().find(c.says), 0u) << file.status().message();
  }
}

}  // namespace
}  // namespace uringload::core
