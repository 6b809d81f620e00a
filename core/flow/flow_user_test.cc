#include "core/flow/flow_user.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/flow/flow_file.h"
#include "core/flow/flow_program.h"
#include "proto/request_template.h"
#include "proto/response_parser.h"

namespace uringload::core {
namespace {

constexpr char kShopWithEveryCheck[] = R"(flow:
  - name: login
    request: POST http://shop.test/login
    body: '{"user":"{user}"}'
    expect: {status: 200, header: {X-Shop: yes}}
    extract: {token: 'json:/token', sid: 'cookie:sid'}
  - name: cart
    request: GET http://shop.test/cart?t={token}
    expect: {status: 200, body_contains: '"items"', json: {/user: ann}}
    extract: {item: 'json:/items/0/id', trace: 'header:X-Trace', n: 'regex:"n":\s*(\d+)'}
    think: 1s
  - name: order
    request: POST http://shop.test/order
    body: '{"item":"{item}","n":{n}}'
    expect: {status: 201}
)";

// A flow user over the shop flow, with the templates its steps render.
class FlowUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> columns = {"user"};
    absl::StatusOr<FlowFile> file = ParseFlowFile(kShopWithEveryCheck, "shop.yaml", columns);
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<FlowProgram> program = CompileFlows(*file, "shop.yaml", columns, 64, 512);
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
    names_ = program_.ColumnNames(columns);
    std::vector<size_t> data_sizes = {16};
    sizes_ = program_.ColumnSizes(data_sizes);
    for (const FlowStep& s : file->flows[0].steps) {
      proto::RequestSpec spec;
      spec.method = s.method;
      spec.target = s.url.substr(s.url.find('/', 7));
      spec.host_header = "shop.test";
      spec.body = s.body.value_or("");
      spec.extra_lines = "{_cookie}";
      absl::StatusOr<proto::RequestTemplate> t =
          proto::RequestTemplate::Build(spec, {.names = names_, .max_sizes = sizes_});
      ASSERT_TRUE(t.ok()) << t.status();
      templates_.push_back(*std::move(t));
    }
    size_t path_bytes = 0;
    for (const proto::RequestTemplate& t : templates_) {
      path_bytes = std::max(path_bytes, t.path().max_size());
    }
    user_.emplace(&program_, data_sizes, path_bytes, &clock_, &patterns_);
  }

  // The current step's request, rendered.
  std::string Request() {
    proto::TemplateContext context =
        user_->Context({.index = user_->iteration()}, templates_[user_->step()], clock_);
    std::string out(templates_[user_->step()].max_size(), '\0');
    return std::string(templates_[user_->step()].RenderInto(context, out));
  }

  // Feeds `response` in pieces of 5 bytes through a parser that shows it to the user, and
  // judges it.
  std::optional<CheckFailure> Answer(const std::string& response) {
    proto::ResponseParser parser;
    parser.SetInspector(&*user_);
    parser.Start(false);
    proto::ResponseParser::Result r{};
    for (size_t at = 0; at < response.size(); at += 5) {
      r = parser.Feed(std::string_view(response).substr(at, 5));
      if (r.state != proto::ResponseParser::State::kNeedMore) break;
    }
    EXPECT_EQ(r.state, proto::ResponseParser::State::kComplete);
    return user_->Judge(parser.status_code(), -1, clock_);
  }

  static std::string Response(int status, std::string_view headers, std::string_view body) {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\n" + std::string(headers) +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
  }

  FlowProgram program_;
  std::vector<std::string> names_;
  std::vector<size_t> sizes_;
  std::vector<proto::RequestTemplate> templates_;
  int64_t clock_ = 1'000;
  PatternScratch patterns_;
  std::optional<FlowUser> user_;
};

TEST_F(FlowUserTest, ExtractsCarriesAndChecksThroughTheWholeFlow) {
  std::vector<std::string_view> row = {"ann"};
  user_->Begin(7, 0, row, false, clock_, 1);
  EXPECT_EQ(user_->position(), 0u);
  std::string login = Request();
  EXPECT_NE(login.find("{\"user\":\"ann\"}"), std::string::npos) << login;
  EXPECT_EQ(login.find("Cookie:"), std::string::npos) << login;
  EXPECT_EQ(Answer(Response(200, "X-Shop: yes\r\nSet-Cookie: sid=s1; Path=/\r\n",
                            R"({"token": "t\"1", "user": "ann"})")),
            std::nullopt);
  EXPECT_EQ(user_->Advance(clock_), FlowUser::Next::kStep);
  std::string cart = Request();
  EXPECT_NE(cart.find("GET /cart?t=t\"1 HTTP/1.1\r\n"), std::string::npos) << cart;
  EXPECT_NE(cart.find("\r\nCookie: sid=s1\r\n"), std::string::npos) << cart;
  EXPECT_EQ(Answer(Response(200, "x-trace: abc\r\n",
                            R"({"user": "ann", "items": [{"id": "i9"}], "n": 3})")),
            std::nullopt);
  EXPECT_EQ(user_->Advance(clock_), FlowUser::Next::kThink);
  EXPECT_EQ(user_->think_until_ns(), clock_ + 1'000'000'000);
  user_->EndThink();
  std::string order = Request();
  EXPECT_NE(order.find("{\"item\":\"i9\",\"n\":3}"), std::string::npos) << order;
  EXPECT_EQ(Answer(Response(201, "", "")), std::nullopt);
  EXPECT_EQ(user_->Advance(clock_), FlowUser::Next::kCompleted);
  EXPECT_FALSE(user_->in_iteration());
}

TEST_F(FlowUserTest, EachMissedExpectationHasItsCause) {
  std::vector<std::string_view> row = {"ann"};
  auto login = [&](std::string response) {
    user_->Begin(1, 0, row, false, clock_, 1);
    Request();
    return Answer(response);
  };
  const std::string ok_body = R"({"token": "t"})";
  EXPECT_EQ(login(Response(500, "X-Shop: yes\r\nSet-Cookie: sid=1\r\n", ok_body)),
            CheckFailure::kStatus);
  EXPECT_EQ(login(Response(200, "X-Shop: no\r\nSet-Cookie: sid=1\r\n", ok_body)),
            CheckFailure::kHeaderValue);
  EXPECT_EQ(login(Response(200, "Set-Cookie: sid=1\r\n", ok_body)), CheckFailure::kHeaderValue);
  EXPECT_EQ(login(Response(200, "X-Shop: yes\r\nSet-Cookie: sid=1\r\n", R"({"tok": "t"})")),
            CheckFailure::kNotExtracted);
  EXPECT_EQ(login(Response(200, "X-Shop: yes\r\n", ok_body)), CheckFailure::kNotExtracted);
  EXPECT_EQ(login(Response(200, "X-Shop: yes\r\nSet-Cookie: sid=1\r\n",
                           R"({"token": ")" + std::string(65, 'x') + "\"}")),
            CheckFailure::kTooLong);
  EXPECT_EQ(login(Response(200, "X-Shop: yes\r\nSet-Cookie: sid=" + std::string(600, 'x') + "\r\n",
                           ok_body)),
            CheckFailure::kCookieRefused);
  // The second step: its body text, then its JSON value, then its extractions.
  user_->Begin(2, 0, row, false, clock_, 1);
  Request();
  ASSERT_EQ(Answer(Response(200, "X-Shop: yes\r\nSet-Cookie: sid=1\r\n", ok_body)), std::nullopt);
  user_->Advance(clock_);
  Request();
  EXPECT_EQ(Answer(Response(200, "", R"({"user": "ann"})")), CheckFailure::kBodyContains);
  EXPECT_EQ(Answer(Response(200, "", R"({"user": "bob", "items": []})")), CheckFailure::kJsonValue);
  EXPECT_EQ(Answer(Response(200, "", R"({"user": "ann", "items": []})")),
            CheckFailure::kNotExtracted);
  EXPECT_EQ(Answer(Response(200, "", R"({"user": "ann", "items": [{"id": 1}], "n": 2})")),
            CheckFailure::kNotExtracted);  // No X-Trace header.
  EXPECT_EQ(Answer(Response(200, "X-Trace: t\r\n", R"({"user": "ann", "items": [{"id": 1}]})")),
            CheckFailure::kNotExtracted);  // No "n" for the regex.
  EXPECT_EQ(
      Answer(Response(200, "X-Trace: t\r\n", R"({"user": "ann", "items": [{"id": 1}], "n": 12})")),
      std::nullopt);
}

// Several flows: each iteration takes one in proportion to the weights, the same one for the
// same index and seed whoever runs it; their steps are named flow.step.
TEST(FlowProgramTest, IterationsFollowTheWeightsOfSeveralFlows) {
  constexpr char kTwo[] = R"(flows:
  - name: browse
    weight: 3
    steps:
      - name: home
        request: GET http://shop.test/
  - name: buy
    steps:
      - name: home
        request: GET http://shop.test/
      - name: pay
        request: POST http://shop.test/pay
)";
  absl::StatusOr<FlowFile> file = ParseFlowFile(kTwo, "two.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<FlowProgram> program = CompileFlows(*file, "two.yaml", {}, 64, 512);
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->steps.size(), 3u);
  EXPECT_EQ(program->steps[0].name, "browse.home");
  EXPECT_EQ(program->steps[2].name, "buy.pay");
  EXPECT_EQ(program->flows[1].first_step, 1u);
  int buys = 0;
  for (uint64_t index = 0; index < 40'000; ++index) {
    uint32_t flow = program->FlowOf(index, 7);
    EXPECT_EQ(flow, program->FlowOf(index, 7));
    buys += flow == 1;
  }
  EXPECT_NEAR(buys, 10'000, 300);  // A quarter, within 3 standard deviations (87).
}

// A flow of one step that takes a header of a long name and thinks a uniform time.
class OneStepUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    constexpr char kFlow[] = R"(flow:
  - name: one
    request: GET http://shop.test/
    extract: {trace: 'header:X-Request-Trace-Identifier-Of-The-Gateway-Layer'}
    think: uniform:1s-2s
)";
    absl::StatusOr<FlowFile> file = ParseFlowFile(kFlow, "one.yaml");
    ASSERT_TRUE(file.ok()) << file.status();
    absl::StatusOr<FlowProgram> program = CompileFlows(*file, "one.yaml", {}, 64, 512);
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
    user_.emplace(&program_, std::span<const size_t>(), 8, &clock_, nullptr);
  }

  // Iteration `index` under `seed`, answered with `headers`: the check's verdict.
  std::optional<CheckFailure> Iteration(uint64_t index, uint64_t seed, std::string headers) {
    user_->Begin(index, 0, {}, false, clock_, seed);
    proto::ResponseParser parser;
    parser.SetInspector(&*user_);
    parser.Start(false);
    std::string response = "HTTP/1.1 200 OK\r\n" + headers + "Content-Length: 0\r\n\r\n";
    EXPECT_EQ(parser.Feed(response).state, proto::ResponseParser::State::kComplete);
    return user_->Judge(parser.status_code(), -1, clock_);
  }
  int64_t Think(uint64_t index, uint64_t seed) {
    EXPECT_EQ(Iteration(index, seed, "X-Request-Trace-Identifier-Of-The-Gateway-Layer: t\r\n"),
              std::nullopt);
    EXPECT_EQ(user_->Advance(clock_), FlowUser::Next::kCompleted);
    return user_->think_until_ns() - clock_;
  }

  FlowProgram program_;
  int64_t clock_ = 1'000;
  std::optional<FlowUser> user_;
};

// A header's name of any length is matched (a name of 45 bytes, past the 32 once kept).
TEST_F(OneStepUserTest, AHeaderOfALongNameIsExtracted) {
  EXPECT_EQ(Iteration(1, 1, "X-Request-Trace-Identifier-Of-The-Gateway-Layer: abc\r\n"),
            std::nullopt);
  EXPECT_EQ(Iteration(1, 1, "X-Request-Trace-Identifier-Of-The-Gateway-Layer-Not: abc\r\n"),
            CheckFailure::kNotExtracted);
  EXPECT_EQ(Iteration(1, 1, "X-Request-Trace-Identifier-Of-The-Gateway-Layeq: abc\r\n"),
            CheckFailure::kNotExtracted);
}

// Think times follow --seed: the same seed draws the same ones, another seed others.
TEST_F(OneStepUserTest, ThinkTimesFollowTheSeed) {
  int differ = 0;
  for (uint64_t index = 0; index < 50; ++index) {
    int64_t think = Think(index, 7);
    EXPECT_GE(think, 1'000'000'000);
    EXPECT_LE(think, 2'000'000'000);
    EXPECT_EQ(think, Think(index, 7));
    differ += think != Think(index, 8);
  }
  EXPECT_EQ(differ, 50);
}

// header:Name:REGEX takes the regex's group of the header's value: the path of an absolute
// Location; a value without the part is not extracted.
TEST(FlowUserHeaderPatternTest, TheGroupOfAHeadersValueIsExtracted) {
  constexpr char kFlow[] = R"(flow:
  - name: make
    request: POST http://shop.test/orders
    extract: {order: 'header:Location:^https?://[^/]*(/.*)$'}
)";
  absl::StatusOr<FlowFile> file = ParseFlowFile(kFlow, "p.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<FlowProgram> program = CompileFlows(*file, "p.yaml", {}, 64, 512);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_TRUE(program->any_header_pattern);
  EXPECT_FALSE(program->any_regex);
  int64_t clock = 1'000;
  PatternScratch patterns;
  FlowUser user(&*program, {}, 16, &clock, &patterns);
  auto answer = [&](std::string headers) {
    user.Begin(0, 0, {}, false, clock, 1);
    proto::ResponseParser parser;
    parser.SetInspector(&user);
    parser.Start(false);
    std::string response = "HTTP/1.1 201 Created\r\n" + headers + "Content-Length: 0\r\n\r\n";
    EXPECT_EQ(parser.Feed(response).state, proto::ResponseParser::State::kComplete);
    return user.Judge(201, -1, clock);
  };
  EXPECT_EQ(answer("Location: https://shop.test:8443/orders/8f3a?v=2\r\n"), std::nullopt);
  proto::RequestSpec spec;
  spec.method = "GET";
  spec.target = "/";
  absl::StatusOr<proto::RequestTemplate> root = proto::RequestTemplate::Build(spec);
  ASSERT_TRUE(root.ok()) << root.status();
  proto::TemplateContext context = user.Context({}, *root, clock);
  ASSERT_EQ(context.fields.size(), 2u);  // The variable, then the Cookie line.
  EXPECT_EQ(context.fields[0], "/orders/8f3a?v=2");
  EXPECT_EQ(answer("Location: /orders/8f3a\r\n"), CheckFailure::kNotExtracted);
}

// A user of `yaml`'s first flow, one step after another: the request it renders, the answer.
class SteppedUser {
 public:
  explicit SteppedUser(const std::string& yaml) {
    absl::StatusOr<FlowFile> file = ParseFlowFile(yaml, "c.yaml");
    EXPECT_TRUE(file.ok()) << file.status();
    absl::StatusOr<FlowProgram> program = CompileFlows(*file, "c.yaml", {}, 64, 512);
    EXPECT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
    names_ = program_.ColumnNames({});
    sizes_ = program_.ColumnSizes({});
    for (const FlowStep& step : file->flows[0].steps) {
      size_t path = step.url.find('/', step.url.find("://") + 3);
      proto::RequestSpec spec;
      spec.method = step.method;
      spec.target = step.url.substr(path);
      spec.host_header = step.url.substr(step.url.find("://") + 3, path - step.url.find("://") - 3);
      spec.extra_lines = "{_cookie}";
      absl::StatusOr<proto::RequestTemplate> t =
          proto::RequestTemplate::Build(spec, {.names = names_, .max_sizes = sizes_});
      EXPECT_TRUE(t.ok()) << t.status();
      templates_.push_back(*std::move(t));
    }
    user_.emplace(&program_, std::span<const size_t>(), 16, &clock_, nullptr);
    user_->Begin(0, 0, {}, false, clock_, 1);
  }
  std::string Request() {
    const proto::RequestTemplate& t = templates_[user_->position()];
    proto::TemplateContext context = user_->Context({.index = 0}, t, clock_);
    std::string out(t.max_size(), '\0');
    return std::string(t.RenderInto(context, out));
  }
  // The step's answer carries `headers`; the user goes on to its next step.
  void Answer(const std::string& headers) {
    proto::ResponseParser parser;
    parser.SetInspector(&*user_);
    parser.Start(false);
    ASSERT_EQ(parser.Feed("HTTP/1.1 200 OK\r\n" + headers + "Content-Length: 0\r\n\r\n").state,
              proto::ResponseParser::State::kComplete);
    ASSERT_EQ(user_->Judge(200, -1, clock_), std::nullopt);
    user_->Advance(clock_);
  }

 private:
  FlowProgram program_;
  std::vector<std::string> names_;
  std::vector<size_t> sizes_;
  std::vector<proto::RequestTemplate> templates_;
  int64_t clock_ = 1'000;
  std::optional<FlowUser> user_;
};

// A Cookie header the flow writes goes whole, as written, however far past the jar's bounds
// (21 cookies of 1,893 bytes, a jar of 512 bytes: 8 of them went once); the jar adds the
// cookies of other names it holds, and never one the header names.
TEST(FlowUserCookieTest, AWrittenCookieHeaderIsSentWholeWithTheJarsOthers) {
  std::string written;
  for (int k = 0; k < 21; ++k) {
    absl::StrAppend(&written, k == 0 ? "" : "; ", "c", k, "=", std::string(84, 'a' + k % 26));
  }
  absl::StrAppend(&written, "; sid=mine");
  EXPECT_GE(written.size(), 1'800u);
  SteppedUser user(absl::StrCat(R"(flow:
  - name: login
    request: GET http://shop.test/login
  - name: page
    request: GET http://shop.test/page
    headers: {Cookie: ')",
                                written, R"('}
)"));
  user.Request();
  user.Answer("Set-Cookie: sid=s1; Path=/\r\nSet-Cookie: lang=en; Path=/\r\n");
  std::string page = user.Request();
  EXPECT_NE(page.find("\r\nCookie: " + written + "; lang=en\r\n"), std::string::npos) << page;
  EXPECT_EQ(page.find("sid=s1"), std::string::npos) << page;
}

// Steps at several origins: each request carries the cookies its own host and path match, as
// a browser's would. A Domain cookie goes to the site's API; a host-only one stays with its
// host (whatever the port); none goes to another site.
TEST(FlowUserCookieTest, CookiesFollowTheirDomainAndPathAcrossOrigins) {
  SteppedUser user(R"(flow:
  - name: login
    request: GET https://www.shop.test/login
  - name: api
    request: GET https://api.shop.test:8443/items
  - name: page
    request: GET https://www.shop.test:8443/account/page
  - name: other
    request: GET https://other.test/
  - name: plain
    request: GET http://www.shop.test/
)");
  user.Request();
  user.Answer(
      "Set-Cookie: wide=1; Domain=shop.test; Path=/\r\nSet-Cookie: own=2; Path=/\r\n"
      "Set-Cookie: acct=3; Path=/account\r\nSet-Cookie: safe=4; Path=/; Secure\r\n");
  std::string api = user.Request();
  EXPECT_NE(api.find("\r\nCookie: wide=1\r\n"), std::string::npos) << api;
  user.Answer("");
  std::string page = user.Request();
  EXPECT_NE(page.find("\r\nCookie: wide=1; own=2; acct=3; safe=4\r\n"), std::string::npos) << page;
  user.Answer("");
  std::string other = user.Request();
  EXPECT_EQ(other.find("Cookie:"), std::string::npos) << other;
  user.Answer("");
  std::string plain = user.Request();  // Not over TLS: no Secure cookie.
  EXPECT_NE(plain.find("\r\nCookie: wide=1; own=2\r\n"), std::string::npos) << plain;
}

}  // namespace
}  // namespace uringload::core
