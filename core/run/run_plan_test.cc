#include "core/run/run_plan.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace uringload::core {
namespace {

RunOptions Valid() {
  RunOptions o;
  o.url = "http://127.0.0.1:8080/{i}";
  return o;
}

TEST(RunPlanTest, DefaultsToThousandRequests) {
  absl::StatusOr<RunPlan> plan = MakeRunPlan(Valid());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->requests, kDefaultRequests);
  EXPECT_FALSE(plan->duration.has_value());
  EXPECT_EQ(plan->concurrency, 100u);
  EXPECT_GE(plan->threads, 1u);
  EXPECT_EQ(plan->targets[0].spec.target, "/{i}");
  EXPECT_EQ(plan->targets[0].spec.host_header, "127.0.0.1:8080");
  ASSERT_EQ(plan->addresses.size(), 1u);
  EXPECT_EQ(plan->addresses[0].ToString(), "127.0.0.1:8080");
  EXPECT_TRUE(plan->sources.empty());
}

// --arrival: even by default, poisson or gamma:K with -R; anything else one clear line.
TEST(RunPlanTest, ArrivalsAreEvenPoissonOrGamma) {
  RunOptions o = Valid();
  o.rate = "100";
  absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->arrival.random());
  EXPECT_EQ(ArrivalName(plan->arrival), "even");
  o.arrival = "poisson";
  plan = MakeRunPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->arrival.kind, ArrivalProcess::Kind::kPoisson);
  EXPECT_EQ(ArrivalName(plan->arrival), "poisson");
  o.arrival = "gamma:0.5";
  plan = MakeRunPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->arrival.shape, 0.5);
  EXPECT_EQ(ArrivalName(plan->arrival), "gamma:0.5");
  for (const char* bad :
       {"gamma:0", "gamma:-1", "gamma:nan", "gamma:", "gamma:2000", "burst", "Poisson"}) {
    o.arrival = bad;
    plan = MakeRunPlan(o);
    ASSERT_FALSE(plan.ok()) << bad;
    EXPECT_NE(plan.status().message().find(absl::StrCat("got '", bad, "'")), std::string::npos)
        << plan.status();
  }
  o.rate.reset();
  o.arrival = "poisson";
  plan = MakeRunPlan(o);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("--arrival needs -R"), std::string::npos);
}

// --llm builds the request: a POST of JSON with the prompt column escaped, the API's path
// when the URL names none, and the answer read as server-sent events.
TEST(RunPlanTest, LlmBuildsTheRequest) {
  RunOptions o = Valid();
  o.url = "http://127.0.0.1:8000";
  o.llm = "chat";
  o.model = "m-1";
  o.data_file = "prompts.csv";
  o.max_tokens = "64";
  absl::StatusOr<RunOptions> chat = WithLlmRequest(o);
  ASSERT_TRUE(chat.ok()) << chat.status();
  EXPECT_EQ(chat->url, "http://127.0.0.1:8000/v1/chat/completions");
  EXPECT_EQ(chat->method, "POST");
  EXPECT_EQ(chat->stream, "sse");
  EXPECT_EQ(*chat->body,
            R"({"model":"m-1","messages":[{"role":"user","content":"{prompt:json}"}],)"
            R"("max_tokens":64,"stream":true,"stream_options":{"include_usage":true}})");
  o.llm = "completions";
  o.url = "http://h/api/v1/completions?x=1";  // A path of its own is kept.
  o.max_tokens = "budget";                    // A column.
  o.data_field = "text";
  absl::StatusOr<RunOptions> completions = WithLlmRequest(o);
  ASSERT_TRUE(completions.ok()) << completions.status();
  EXPECT_EQ(completions->url, "http://h/api/v1/completions?x=1");
  EXPECT_NE(completions->body->find(R"("prompt":"{text:json}","max_tokens":{budget},)"),
            std::string::npos)
      << *completions->body;
  o.goodput = {"ttft<200ms", "tpot < 50ms", "itl<1s", "e2e<10s"};
  absl::StatusOr<LlmPlan> plan = MakeLlmPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->goodput.size(), 4u);
  EXPECT_EQ(plan->goodput[1].below_ns, 50'000'000);
  EXPECT_FALSE(plan->chat);
  for (const char* bad : {"ttft>1s", "ttft<", "ttft<1", "latency<1s", "ttft<-1s"}) {
    o.goodput = {bad};
    EXPECT_FALSE(MakeLlmPlan(o).ok()) << bad;
  }
}

// The batch window: 200 us by default, up to 400 us with -p; a given one is fixed.
TEST(RunPlanTest, BatchWindowIsAutoUnlessGiven) {
  struct Case {
    int64_t pipeline;
    std::string window;
    absl::Duration least, most;
  };
  for (const Case& k : {Case{1, "auto", absl::Microseconds(200), absl::Microseconds(200)},
                        Case{16, "auto", absl::Microseconds(200), absl::Microseconds(400)},
                        Case{16, "50us", absl::Microseconds(50), absl::Microseconds(50)},
                        Case{1, "0", absl::ZeroDuration(), absl::ZeroDuration()}}) {
    RunOptions o = Valid();
    o.pipeline = k.pipeline;
    o.batch_window = k.window;
    absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->batch_window, k.least) << k.pipeline << " " << k.window;
    EXPECT_EQ(plan->batch_window_max, k.most) << k.pipeline << " " << k.window;
  }
}

// --busy-poll never waits for a batch: no window, whatever -p; a window of 0 is the same thing.
TEST(RunPlanTest, BusyPollingHasNoBatchWindow) {
  for (const char* window : {"auto", "0", "0us"}) {
    RunOptions o = Valid();
    o.busy_poll = true;
    o.pipeline = 16;
    o.batch_window = window;
    absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_TRUE(plan->busy_poll);
    EXPECT_EQ(plan->batch_window, absl::ZeroDuration()) << window;
    EXPECT_EQ(plan->batch_window_max, absl::ZeroDuration()) << window;
  }
  EXPECT_FALSE(MakeRunPlan(Valid())->busy_poll);
}

TEST(RunPlanTest, DurationOnlyHasNoRequestCountAndThreadsNeverExceedConcurrency) {
  RunOptions o = Valid();
  o.duration = "2s";
  o.concurrency = 3;
  o.threads = 8;
  absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->requests.has_value());
  EXPECT_EQ(*plan->duration, absl::Seconds(2));
  EXPECT_EQ(plan->threads, 3u);
}

TEST(RunPlanTest, SpreadsConnectionsEvenly) {
  EXPECT_EQ(ConnectionsForWorker(10, 3, 0), 4u);
  EXPECT_EQ(ConnectionsForWorker(10, 3, 1), 3u);
  EXPECT_EQ(ConnectionsForWorker(10, 3, 2), 3u);
  EXPECT_EQ(FirstConnectionOfWorker(10, 3, 0), 0u);
  EXPECT_EQ(FirstConnectionOfWorker(10, 3, 1), 4u);
  EXPECT_EQ(FirstConnectionOfWorker(10, 3, 2), 7u);
}

// -n 10 -c 3000 opens 10 connections: the plan says so, and keeps what was asked.
TEST(RunPlanTest, ConcurrencyNeverExceedsTheRequestCount) {
  RunOptions o = Valid();
  o.requests = 10;
  o.concurrency = 3000;
  absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->concurrency, 10u);
  EXPECT_EQ(plan->requested_concurrency, 3000u);
  EXPECT_LE(plan->threads, 10u);
  o.requests.reset();
  o.duration = "1s";
  plan = MakeRunPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->concurrency, 3000u);
}

TEST(RunPlanTest, PortRangesSourcesAndEnoughThreadsForTheDescriptorTables) {
  RunOptions o = Valid();
  o.url = "http://127.0.0.1:8080-8083/{i}";
  o.source = "127.0.0.2-127.0.0.4";
  o.concurrency = 60000;
  o.requests = 1'000'000;
  absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->addresses.size(), 4u);
  EXPECT_EQ(plan->addresses[3].ToString(), "127.0.0.1:8083");
  EXPECT_EQ(plan->RequestFor(0, 2).host_header, "127.0.0.1:8082");
  EXPECT_EQ(plan->sources.size(), 3u);
  // Chosen automatically: no ring holds more descriptors than RLIMIT_NOFILE allows.
  EXPECT_LE(ConnectionsForWorker(60000, plan->threads, 0), DescriptorTableLimit());
}

struct BadCase {
  const char* name;
  void (*mutate)(RunOptions&);
  const char* message_part;
};

TEST(RunPlanTest, RejectsBadOptionsWithOneLineNamingTheProblem) {
  std::vector<BadCase> cases = {
      {"tls flags over http", [](RunOptions& o) { o.insecure = true; }, "need an https:// URL"},
      {"tls version",
       [](RunOptions& o) {
         o.url = "https://127.0.0.1/";
         o.tls_max_version = "1.1";
       },
       "--tls-max-version must be 1.2 or 1.3"},
      {"no scheme", [](RunOptions& o) { o.url = "127.0.0.1/"; }, "invalid URL"},
      {"port 0", [](RunOptions& o) { o.url = "http://127.0.0.1:0/"; }, "port"},
      {"n = 0", [](RunOptions& o) { o.requests = 0; }, "-n"},
      {"n < 0", [](RunOptions& o) { o.requests = -1; }, "-n"},
      {"c = 0", [](RunOptions& o) { o.concurrency = 0; }, "-c"},
      {"t = 0", [](RunOptions& o) { o.threads = 0; }, "-t"},
      {"bad duration", [](RunOptions& o) { o.duration = "5x"; }, "--duration"},
      {"zero timeout", [](RunOptions& o) { o.timeout = "0s"; }, "--timeout"},
      {"bad connect timeout", [](RunOptions& o) { o.connect_timeout = "soon"; },
       "--connect-timeout"},
      {"negative batch window", [](RunOptions& o) { o.batch_window = "-1ms"; }, "--batch-window"},
      {"huge batch window", [](RunOptions& o) { o.batch_window = "1s"; }, "--batch-window"},
      {"word batch window", [](RunOptions& o) { o.batch_window = "automatic"; }, "--batch-window"},
      {"busy poll with a batch window",
       [](RunOptions& o) {
         o.busy_poll = true;
         o.batch_window = "100us";
       },
       "--busy-poll never waits for a batch"},
      {"bad header", [](RunOptions& o) { o.headers = {"NoColon"}; }, "header"},
      {"bad method", [](RunOptions& o) { o.method = "G T"; }, "method"},
      {"both bodies",
       [](RunOptions& o) {
         o.body = "a";
         o.body_file = "/etc/hostname";
       },
       "--body"},
      {"missing body file", [](RunOptions& o) { o.body_file = "/nonexistent/body"; },
       "--body-file"},
      {"unknown host", [](RunOptions& o) { o.url = "http://no-such-host.invalid/"; },
       "no-such-host.invalid"},
      {"bad source", [](RunOptions& o) { o.source = "127.0.0.9-127.0.0.1"; }, "--source"},
      {"v6 source, v4 target", [](RunOptions& o) { o.source = "::1"; }, "--source"},
      {"bad ramp", [](RunOptions& o) { o.max_connecting = 0; }, "--max-connecting"},
      {"unix socket missing", [](RunOptions& o) { o.unix_socket = "/nonexistent/x.sock"; },
       "--unix: /nonexistent/x.sock: No such file or directory"},
      {"unix socket not a socket", [](RunOptions& o) { o.unix_socket = "/etc/hostname"; },
       "--unix: /etc/hostname: not a socket"},
      {"unix socket and a port range",
       [](RunOptions& o) {
         o.unix_socket = "/nonexistent/x.sock";
         o.url = "http://localhost:80-81/";
       },
       "--unix: a port range in the URL needs TCP"},
      {"unix socket and sources",
       [](RunOptions& o) {
         o.unix_socket = "/nonexistent/x.sock";
         o.source = "127.0.0.2";
       },
       "--unix and --source"},
      {"preconnect without a start", [](RunOptions& o) { o.preconnect = true; },
       "--preconnect needs --start-at"},
      {"n beyond the maximum", [](RunOptions& o) { o.requests = kMaxRequests + 1; },
       "-n/--requests must be between 1 and 1000000000000000"},
      {"timeout beyond the maximum", [](RunOptions& o) { o.timeout = "10000000000s"; },
       "--timeout: invalid duration '10000000000s' (more than 0, at most 24h"},
      {"connect timeout beyond the maximum", [](RunOptions& o) { o.connect_timeout = "25h"; },
       "--connect-timeout"},
      {"duration beyond the maximum", [](RunOptions& o) { o.duration = "10000000000s"; },
       "-d/--duration: invalid duration"},
      {"body file is a directory", [](RunOptions& o) { o.body_file = "/tmp"; },
       "--body-file '/tmp': is a directory"},
      {"too many per ring",
       [](RunOptions& o) {
         o.concurrency = 5'000'000;
         o.requests = 10'000'000;
         o.threads = 1;
       },
       "RLIMIT_NOFILE"},
  };
  for (const BadCase& c : cases) {
    RunOptions o = Valid();
    c.mutate(o);
    absl::StatusOr<RunPlan> plan = MakeRunPlan(o);
    ASSERT_FALSE(plan.ok()) << c.name;
    std::string message(plan.status().message());
    EXPECT_NE(message.find(c.message_part), std::string::npos) << c.name << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << c.name;
  }
}

// Per-target results: one target per name= (lines of one name together) or unnamed line, in
// order of first appearance; past --max-target-labels the new ones are one, "other".
TEST(RunPlanTest, TargetsAreNamesOrLinesBoundedByMaxTargetLabels) {
  std::string path = ::testing::TempDir() + "/named-targets.txt";
  std::ofstream(path) << "GET http://127.0.0.1:1/a name=login\n"
                         "GET http://127.0.0.1:1/b\n"
                         "GET http://127.0.0.1:1/c name=login\n"
                         "GET http://127.0.0.1:1/d name=pay\n"
                         "GET http://127.0.0.1:1/e\n";
  RunOptions options;
  options.targets_file = path;
  options.max_target_labels = 2;
  absl::StatusOr<RunPlan> plan = MakeRunPlan(options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->target_names,
            (std::vector<std::string>{"login", "GET http://127.0.0.1:1/b", "other"}));
  EXPECT_EQ(plan->target_of, (std::vector<uint32_t>{0, 1, 0, 2, 2}));
  options.max_target_labels = 50;
  plan = MakeRunPlan(options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->target_names.size(), 4u);
  options.max_target_labels = 0;
  EXPECT_EQ(MakeRunPlan(options).status().message().substr(0, 19), "--max-target-labels");
  // A URL alone keeps no per-target results.
  RunOptions url;
  url.url = "http://127.0.0.1:1/";
  EXPECT_TRUE(MakeRunPlan(url)->target_names.empty());
}

// A flow's steps at three origins: each target knows its origin and sends its own Host; a
// user holds min(origins, --max-origins-per-user) connections; the plan resolves each origin.
TEST(RunPlanTest, AFlowOverSeveralOriginsGivesEachUserAConnectionPerOrigin) {
  std::string path = ::testing::TempDir() + "/origins.yaml";
  std::ofstream(path) << "flow:\n"
                         "  - name: a\n    request: GET http://127.0.0.1:1/a\n"
                         "  - name: b\n    request: GET https://127.0.0.2:2/b\n"
                         "  - name: c\n    request: GET http://127.0.0.1:1/c\n"
                         "  - name: d\n    request: GET http://127.0.0.1:3/d\n";
  RunOptions options;
  options.flow_file = path;
  absl::StatusOr<RunPlan> plan = MakeRunPlan(options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->origins.size(), 3u);
  EXPECT_EQ(plan->lanes, 3u);
  std::vector<uint16_t> origins;
  for (const TargetRequest& t : plan->targets) origins.push_back(t.origin);
  EXPECT_EQ(origins, (std::vector<uint16_t>{0, 1, 0, 2}));
  EXPECT_EQ(plan->RequestFor(1, 0).host_header, "127.0.0.2:2");
  EXPECT_EQ(plan->RequestFor(3, 0).host_header, "127.0.0.1:3");
  EXPECT_EQ(plan->AddressOf(0, 0).ToString(), "127.0.0.1:1");
  EXPECT_EQ(plan->AddressOf(1, 0).ToString(), "127.0.0.2:2");
  EXPECT_EQ(plan->AddressOf(2, 0).ToString(), "127.0.0.1:3");
  EXPECT_TRUE(plan->any_tls());
  EXPECT_NE(plan->tls, nullptr);  // One origin is https://.
  EXPECT_EQ(plan->flow->steps[1].host, "127.0.0.2");
  EXPECT_TRUE(plan->flow->steps[1].tls);
  options.max_origins_per_user = 2;
  EXPECT_EQ(MakeRunPlan(options)->lanes, 2u);
  for (int64_t bad : {int64_t{0}, kMaxMaxOriginsPerUser + 1}) {
    options.max_origins_per_user = bad;
    EXPECT_EQ(MakeRunPlan(options).status().message().substr(0, 23), "--max-origins-per-user ")
        << bad;
  }
}

}  // namespace
}  // namespace uringload::core
