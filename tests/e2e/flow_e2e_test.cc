// End-to-end: `run --flow` against a shop the test starts (tests/support/shop_server.py: a
// login that gives a token and a session cookie, a cart behind both, an order behind the
// cookie; it counts only valid requests as ok) and against `serve`, over HTTP/1.1 and HTTPS.
// Exact counts of iterations, requests and the server's own; no timing, so these run beside
// other tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/caddy.h"
#include "tests/support/shop.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tls_certs.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

// The flow of the documentation, as written there but for the port.
constexpr char kShopFlow[] = R"(flow:
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

std::string ForPort(std::string flow, uint16_t port) {
  return absl::StrReplaceAll(flow, {{"127.0.0.1:8080", "127.0.0.1:" + std::to_string(port)}});
}

// `good` users with their passwords, then `empty` ones whose cart has no item, then `bad`
// ones with a wrong password.
std::string Users(int good, int empty, int bad) {
  std::string csv = "user,pass\n";
  for (int k = 0; k < good; ++k)
    csv += "user" + std::to_string(k) + ",pw-user" + std::to_string(k) + "\n";
  for (int k = 0; k < empty; ++k)
    csv += "empty" + std::to_string(k) + ",pw-empty" + std::to_string(k) + "\n";
  for (int k = 0; k < bad; ++k) csv += "bad" + std::to_string(k) + ",nope\n";
  return csv;
}

uint64_t StepCount(const FlatJson& j, int step, const std::string& what) {
  return JsonCount(j, "by_target." + std::to_string(step) + "." + what);
}

// The documentation's example as written (-n 600 -c 20): every iteration logs in, carries its
// token and cookie into the cart and the order, and the shop saw exactly 600 valid requests of
// each kind and nothing else.
TEST(FlowE2ETest, TheShopFlowRunsAsWrittenWithExactCounts) {
  ShopServer shop;
  ASSERT_TRUE(shop.ok());
  TempFolder dir;
  std::string flow = dir.Write("shop.yaml", ForPort(kShopFlow, shop.port()));
  std::string users = dir.Write("users.csv", Users(50, 0, 0));
  RunOutput run =
      RunUringload({"--flow", flow, "--data", users, "-n", "600", "-c", "20", "--fail-if",
                    "check_failed{step=order}>0", "--allow-saturated", "--report",
                    dir.Path("report.html"), "--timeline", dir.Path("timeline.csv")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err << ErrorsOf(run.json);
  const FlatJson& j = run.json;
  EXPECT_EQ(JsonCount(j, "iterations.planned"), 600u);
  EXPECT_EQ(JsonCount(j, "iterations.started"), 600u);
  EXPECT_EQ(JsonCount(j, "iterations.completed"), 600u);
  EXPECT_EQ(JsonCount(j, "iterations.aborted"), 0u);
  EXPECT_EQ(JsonCount(j, "iterations.cut"), 0u);
  EXPECT_EQ(JsonCount(j, "iterations.duration_histogram.count"), 600u);
  EXPECT_EQ(JsonCount(j, "requests.started"), 1800u);
  EXPECT_EQ(JsonCount(j, "outcomes.ok"), 1800u);
  EXPECT_EQ(JsonCount(j, "connections.opened"), 20u);  // A connection per virtual user.
  const char* names[] = {"login", "cart", "order"};
  for (int step = 0; step < 3; ++step) {
    EXPECT_EQ(j.at("by_target." + std::to_string(step) + ".name"), names[step]);
    EXPECT_EQ(StepCount(j, step, "requests"), 600u) << names[step];
    EXPECT_EQ(StepCount(j, step, "outcomes.ok"), 600u) << names[step];
  }
  EXPECT_EQ(StepCount(j, 0, "status_codes.200"), 600u);
  EXPECT_EQ(StepCount(j, 2, "status_codes.201"), 600u);
  // The report and the timeline have the steps.
  std::ifstream report(dir.Path("report.html"));
  std::string html((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<h2>Per step</h2>"), std::string::npos);
  EXPECT_NE(html.find("<td>order</td><td>600</td>"), std::string::npos);
  std::ifstream timeline(dir.Path("timeline.csv"));
  std::string header;
  std::getline(timeline, header);
  EXPECT_NE(header.find("login:completed"), std::string::npos) << header;
  FlatJson counts = shop.Stop();
  EXPECT_EQ(JsonCount(counts, "login_ok"), 600u);
  EXPECT_EQ(JsonCount(counts, "cart_ok"), 600u);
  EXPECT_EQ(JsonCount(counts, "order_ok"), 600u);
  for (const char* refused : {"login_bad", "cart_bad", "order_bad", "other"}) {
    EXPECT_EQ(JsonCount(counts, refused), 0u) << refused;
  }
}

// Answers that are wrong on purpose: a wrong password fails the login's status check, an
// empty cart leaves nothing to extract; each aborts its iteration at that step, whose later
// steps are never sent. 400 iterations over 40 rows: each row 10 times.
TEST(FlowE2ETest, ChecksThatFailAbortTheirIterationsAtTheirStep) {
  ShopServer shop;
  ASSERT_TRUE(shop.ok());
  TempFolder dir;
  std::string flow = dir.Write("shop.yaml", ForPort(kShopFlow, shop.port()));
  std::string users = dir.Write("users.csv", Users(30, 5, 5));
  RunOutput run = RunUringload({"--flow", flow, "--data", users, "-n", "400", "-c", "8",
                                "--fail-if", "check_failed{step=cart}>0", "--allow-saturated"});
  EXPECT_EQ(run.process.exit_code, 3) << run.process.err;  // The cart's threshold.
  const FlatJson& j = run.json;
  EXPECT_EQ(JsonCount(j, "iterations.started"), 400u);
  EXPECT_EQ(JsonCount(j, "iterations.completed"), 300u);
  EXPECT_EQ(JsonCount(j, "iterations.aborted"), 100u);
  EXPECT_EQ(JsonCount(j, "requests.started"), 400u + 350u + 300u);
  EXPECT_EQ(JsonCount(j, "outcomes.ok"), 950u);
  EXPECT_EQ(JsonCount(j, "outcomes.check_failed"), 100u);
  EXPECT_EQ(StepCount(j, 0, "requests"), 400u);
  EXPECT_EQ(StepCount(j, 0, "aborted_iterations"), 50u);
  EXPECT_EQ(StepCount(j, 0, "check_failed_causes.status not expected"), 50u);
  EXPECT_EQ(StepCount(j, 0, "status_codes.401"), 50u);
  EXPECT_EQ(StepCount(j, 1, "requests"), 350u);
  EXPECT_EQ(StepCount(j, 1, "aborted_iterations"), 50u);
  EXPECT_EQ(StepCount(j, 1, "check_failed_causes.nothing to extract"), 50u);
  EXPECT_EQ(StepCount(j, 2, "requests"), 300u);
  EXPECT_EQ(StepCount(j, 2, "aborted_iterations"), 0u);
  FlatJson counts = shop.Stop();
  EXPECT_EQ(JsonCount(counts, "login_ok"), 350u);
  EXPECT_EQ(JsonCount(counts, "login_bad"), 50u);
  EXPECT_EQ(JsonCount(counts, "cart_ok"), 350u);
  EXPECT_EQ(JsonCount(counts, "order_ok"), 300u);
  EXPECT_EQ(JsonCount(counts, "cart_bad") + JsonCount(counts, "order_bad"), 0u);
}

// A cookie of Max-Age=1 (the server's session lasts an hour): sent while alive, dropped by the
// jar once expired. After a think of 200 ms every cart is ok; after 1.5 s none carries the
// cookie and the shop refuses each. The cookie is also extracted by name.
TEST(FlowE2ETest, CookiesAreSentBackUntilTheyExpire) {
  constexpr char kFlow[] = R"(flow:
  - name: login
    request: POST http://127.0.0.1:8080/login
    body: '{"user":"user{i}","pass":"pw-user{i}"}'
    expect: {status: 200, header: {Content-Type: application/json}}
    extract: {token: 'json:/token', session: 'cookie:session'}
    think: THINK
  - name: cart
    request: GET http://127.0.0.1:8080/cart?s={session}
    headers: {Authorization: 'Bearer {token}'}
    expect: {status: 200}
)";
  for (const auto& [think, carts_ok] : {std::pair{"200ms", 10u}, std::pair{"1500ms", 0u}}) {
    ShopServer shop(/*cookie_max_age=*/1);
    ASSERT_TRUE(shop.ok());
    TempFolder dir;
    std::string flow = dir.Write(
        "cookies.yaml", absl::StrReplaceAll(ForPort(kFlow, shop.port()), {{"THINK", think}}));
    RunOutput run = RunUringload({"--flow", flow, "-n", "10", "-c", "10"});
    const FlatJson& j = run.json;
    EXPECT_EQ(JsonCount(j, "iterations.completed"), carts_ok) << think << run.process.err;
    EXPECT_EQ(JsonCount(j, "iterations.aborted"), 10u - carts_ok) << think;
    EXPECT_EQ(StepCount(j, 1, "requests"), 10u) << think;
    FlatJson counts = shop.Stop();
    EXPECT_EQ(JsonCount(counts, "login_ok"), 10u) << think;
    EXPECT_EQ(JsonCount(counts, "cart_ok"), carts_ok) << think;
    EXPECT_EQ(JsonCount(counts, "cart_bad"), 10u - carts_ok) << think;
  }
}

// Over HTTP/1.1, HTTPS, h2c and h2 against `serve` (whose body is the path's last segment):
// the index comes back as the body's JSON, goes into the next path, and a regex takes it back
// out; the server answered exactly three requests per iteration. Also in the open model (-R).
TEST(FlowE2ETest, VariablesFlowThroughStepsOverEveryProtocol) {
  constexpr char kFlow[] = R"(flow:
  - name: first
    request: GET SCHEME://127.0.0.1:PORT/a/{i}
    extract: {n: 'json:'}
  - name: second
    request: GET SCHEME://127.0.0.1:PORT/b/{n}7
    expect: {status: 200}
    extract: {m: 'regex:^(\d+)7$'}
  - name: third
    request: GET SCHEME://127.0.0.1:PORT/c/{m}
    expect: {status: 200, header: {Content-Length: '1'}}
)";
  struct Mode {
    const char* name;
    bool tls;
    bool http2;
    bool http3 = false;
  };
  for (const Mode& mode :
       {Mode{"http/1.1", false, false}, Mode{"https", true, false}, Mode{"h2c", false, true},
        Mode{"h2", true, true}, Mode{"h3", true, false, true}}) {
    std::vector<std::string> server_flags;
    if (mode.tls)
      server_flags = {"--tls-cert", SharedCert().cert(), "--tls-key", SharedCert().key()};
    if (mode.http2) server_flags.push_back("--http2");
    if (mode.http3) server_flags.push_back("--http3");
    UringloadServer server(server_flags);
    ASSERT_TRUE(server.ok());
    TempFolder dir;
    std::string flow = dir.Write(
        "chain.yaml", absl::StrReplaceAll(kFlow, {{"SCHEME", mode.tls ? "https" : "http"},
                                                  {"PORT", std::to_string(server.port())}}));
    std::vector<std::string> args = {"--flow", flow, "-n", "10", "-c", "4", "-R", "200"};
    if (mode.tls) args.insert(args.end(), {"--cacert", SharedCert().cert()});
    args.push_back(mode.http3 ? "--http3" : mode.http2 ? "--http2" : "--http1.1");
    RunOutput run = RunUringload(args);
    ASSERT_EQ(run.process.exit_code, 0) << mode.name << run.process.err << ErrorsOf(run.json);
    // Iterations 0-9: the third step's body is the index, one digit.
    EXPECT_EQ(JsonCount(run.json, "iterations.completed"), 10u) << mode.name;
    EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 30u) << mode.name;
    EXPECT_EQ(JsonCount(run.json, "connections.protocols.h2"),
              mode.http2 ? JsonCount(run.json, "connections.opened") : 0u)
        << mode.name;
    EXPECT_EQ(JsonCount(run.json, "connections.protocols.h3"),
              mode.http3 ? JsonCount(run.json, "connections.opened") : 0u)
        << mode.name;
    FlatJson summary;
    ASSERT_EQ(server.Stop(&summary), 0);
    EXPECT_EQ(JsonCount(summary, "requests.answered"), 30u) << mode.name;
  }
}

// Over HTTP/3 to caddy (quic-go): the login's Set-Cookie goes back as the cookie field and
// its token in the next step's header; caddy echoes both, and the last step's path makes it
// answer 200 only when the iteration's user, the cookie's and the token's are one.
TEST(FlowE2ETest, CookiesAndTokensGoBackOverHttp3) {
  ASSERT_TRUE(SharedCert().ok());
  CaddyServer caddy(SharedCert().cert(), SharedCert().key(), R"(@login path /login
	handle @login {
		header Set-Cookie "session=s-{query.user}; Path=/"
		respond "{\"token\":\"t-{query.user}\"}"
	}
	handle /me {
		respond "{cookie.session} {header.Authorization}"
	}
	@same expression `{path.1} == {path.2} && {path.2} == {path.3}`
	handle @same {
		respond "same"
	}
	handle {
		respond "different" 409
	})");
  ASSERT_TRUE(caddy.ok());
  constexpr char kFlow[] = R"(flow:
  - name: login
    request: GET URL/login?user=u{i}
    expect: {status: 200}
    extract: {token: 'json:/token'}
  - name: me
    request: GET URL/me
    headers: {Authorization: 'Bearer {token}'}
    expect: {status: 200}
    extract: {c: 'regex:^s-(\w+) ', a: 'regex:Bearer t-(\w+)$'}
  - name: check
    request: GET URL/c/u{i}/{c}/{a}
    expect: {status: 200, body_contains: same}
)";
  TempFolder dir;
  std::string flow = dir.Write("h3.yaml", absl::StrReplaceAll(kFlow, {{"URL", caddy.Url("")}}));
  RunOutput run = RunUringload(
      {"--http3", "--flow", flow, "-n", "60", "-c", "6", "--cacert", SharedCert().cert()});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "iterations.completed"), 60u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 180u) << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "connections.protocols.h3"),
            JsonCount(run.json, "connections.opened"));
  caddy.Stop();
  EXPECT_EQ(caddy.RequestsLoggedWith("HTTP/3.0"), 180u);
}

// A recorded session (tests/e2e/data/shop.har: a login, a cart, an order, a look at the order
// at its Location, a proxy tunnel, a CDN's script) becomes a flow with `uringload har2flow`, and
// that flow replays the session against the shop: each iteration logs in afresh, carries the new
// token, item and order URL (not the recorded ones) and the session cookie, and sends the cookie it
// had from before the recording along with it; the tunnel and the CDN are no steps.
TEST(FlowE2ETest, ARecordedHarBecomesAFlowThatReplaysTheSession) {
  ShopServer shop;
  ASSERT_TRUE(shop.ok());
  TempFolder dir;
  std::ifstream in(URINGLOAD_SOURCE_DIR "/tests/e2e/data/shop.har");
  std::string har((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string har_path = dir.Write("shop.har", ForPort(har, shop.port()));
  ProcessResult converted = RunProcess({UringloadBinary(), "har2flow", har_path});
  ASSERT_EQ(converted.exit_code, 0) << converted.err;
  EXPECT_NE(converted.out.find("token: 'json:/token'"), std::string::npos) << converted.out;
  // The CDN's script is another origin: skipped, and said so.
  EXPECT_NE(converted.err.find("uringload: har2flow: the session spans 2 origins: the flow keeps "
                               "http://127.0.0.1:" +
                               std::to_string(shop.port()) +
                               " (4 requests, a connection per "
                               "origin for each user) and skips the 1"),
            std::string::npos)
      << converted.err;
  std::string flow = dir.Write("flow.yaml", converted.out);
  RunOutput run = RunUringload({"--flow", flow, "-n", "50", "-c", "5"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "iterations.completed"), 50u);
  FlatJson counts = shop.Stop();
  EXPECT_EQ(JsonCount(counts, "login_ok"), 50u);
  EXPECT_EQ(JsonCount(counts, "cart_ok"), 50u);
  EXPECT_EQ(JsonCount(counts, "order_ok"), 50u);
  // The order's absolute Location: its path taken from the header, the host kept.
  EXPECT_EQ(JsonCount(counts, "view_ok"), 50u);
  for (const char* refused : {"login_bad", "cart_bad", "order_bad", "view_bad", "other"}) {
    EXPECT_EQ(JsonCount(counts, refused), 0u) << refused;
  }
  // Not a HAR: one line, exit 2.
  ProcessResult bad = RunProcess({UringloadBinary(), "har2flow", flow});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not JSON"), std::string::npos) << bad.err;
}

// -d cuts the iterations under way (a user thinking 2 s when 1 s ends stops there, at once),
// and the shards of a flow run merge into its iterations and steps.
TEST(FlowE2ETest, TheRunsEndCutsIterationsAndShardsMerge) {
  ShopServer shop;
  ASSERT_TRUE(shop.ok());
  TempFolder dir;
  std::string thinking =
      absl::StrReplaceAll(ForPort(kShopFlow, shop.port()),
                          {{"    extract: {item: 'json:/items/0/id'}\n",
                            "    extract: {item: 'json:/items/0/id'}\n    think: 2s\n"}});
  std::string users = dir.Write("users.csv", Users(10, 0, 0));
  RunOutput cut = RunUringload(
      {"--flow", dir.Write("think.yaml", thinking), "--data", users, "-d", "1s", "-c", "5"});
  ASSERT_EQ(cut.process.exit_code, 0) << cut.process.err;
  EXPECT_EQ(JsonCount(cut.json, "iterations.started"), 5u);
  EXPECT_EQ(JsonCount(cut.json, "iterations.cut"), 5u);
  EXPECT_EQ(JsonCount(cut.json, "requests.started"), 10u);  // Logins and carts; no order.
  EXPECT_LT(JsonNumber(cut.json, "duration_seconds"), 1.9);
  std::string flow = dir.Write("shop.yaml", ForPort(kShopFlow, shop.port()));
  std::vector<std::string> shards;
  for (const char* shard : {"0/2", "1/2"}) {
    shards.push_back(dir.Path(std::string("shard") + shard[0] + ".json"));
    ProcessResult run =
        RunProcess({UringloadBinary(), "run", "--flow", flow, "--data", users, "-n", "100", "-c",
                    "5", "--shard", shard, "--run-id", "flows", "--json", shards.back(), "-q"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  RunOutput merged = RunUringloadCommand("merge", shards);
  ASSERT_EQ(merged.process.exit_code, 0) << merged.process.err;
  EXPECT_EQ(JsonCount(merged.json, "iterations.completed"), 100u);
  EXPECT_EQ(JsonCount(merged.json, "iterations.duration_histogram.count"), 100u);
  EXPECT_EQ(StepCount(merged.json, 2, "requests"), 100u);
  EXPECT_EQ(merged.json.at("by_target.2.name"), "order");
}

// Bad flow files and flags: one line naming FILE:LINE where there is one, exit 2, no traffic.
TEST(FlowE2ETest, BadFlowsExitTwoBeforeAnyTraffic) {
  TempFolder dir;
  struct Case {
    std::string yaml;
    std::vector<std::string> flags;
    std::string message;
  };
  std::string path = dir.Path("bad.yaml");
  std::vector<Case> cases = {
      {"flow:\n  - request: GET http://127.0.0.1:1/\n    colour: red\n",
       {},
       path + ":3: unknown key `colour`"},
      {"flow:\n  - request: GET http://127.0.0.1:1/{token}\n  - request: GET http://127.0.0.1:1/\n"
       "    extract: {token: 'json:/t'}\n",
       {},
       path + ":2: the URL: {token} is used before a step extracts it (line 3)"},
      {"flow:\n  - request: GET http://127.0.0.1:1/\n    extract: {t: 'json:a/b'}\n",
       {},
       path + ":3: bad JSON pointer 'a/b'"},
      {"flow:\n  - request: GET http://127.0.0.1:1/\n    extract: {t: 'regex:(a'}\n",
       {},
       path + ":3: bad regex '(a'"},
      {"flow:\n  - request: GET http://127.0.0.1:1/{nope}\n", {}, path + ":2: the URL:"},
      {"flow:\n  - request: GET http://127.0.0.1:1/\n", {"-p", "2"}, "--flow: a virtual user"},
      {"flow:\n  - request: GET http://127.0.0.1:1/\n",
       {"http://127.0.0.1:1/"},
       "--flow takes no URL or --targets"},
      {"flow:\n  - request: GET http://127.0.0.1:1/\n",
       {"--max-var-bytes", "0"},
       "--max-var-bytes"},
  };
  for (const Case& c : cases) {
    dir.Write("bad.yaml", c.yaml);
    std::vector<std::string> args = {"--flow", path};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    RunOutput run = RunUringload(args);
    EXPECT_EQ(run.process.exit_code, 2) << c.yaml;
    EXPECT_NE(run.process.err.find(c.message), std::string::npos) << run.process.err;
    EXPECT_EQ(std::count(run.process.err.begin(), run.process.err.end(), '\n'), 1)
        << run.process.err;
    EXPECT_TRUE(run.json.empty()) << c.yaml;
  }
}

}  // namespace
}  // namespace uringload::testing
