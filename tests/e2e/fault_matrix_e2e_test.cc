// End-to-end fault matrix: targets that die, come back, misbehave in every way at once, are
// slow or oversized, and a machine out of ports. Every started request gets exactly one
// outcome, and the run ends normally. Also SIGINT/SIGTERM during a run.
#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/misbehaving_server.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

FlatJson ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<FlatJson> json = FlattenJson(text);
  return json.ok() ? *json : FlatJson{};
}

uint64_t Outcomes(const FlatJson& j) {
  uint64_t sum = 0;
  for (const char* o : {"ok", "timeout", "connect_error", "reset", "parse_error", "check_failed"}) {
    sum += JsonCount(j, std::string("outcomes.") + o);
  }
  return sum;
}

// A run in the background, its JSON read after it exits.
// Whether `signal` waits undelivered for process `pid` (blocked, not yet taken by its
// sigtimedwait): the process-wide or the thread's pending set in /proc.
bool SignalPending(pid_t pid, int signal) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ShdPnd:", 0) == 0 || line.rfind("SigPnd:", 0) == 0) {
      uint64_t mask = std::stoull(line.substr(7), nullptr, 16);
      if (mask & (uint64_t{1} << (signal - 1))) return true;
    }
  }
  return false;
}

struct BackgroundRun {
  std::string json_path = "/tmp/uringload-bg-" + std::to_string(getpid()) + ".json";
  std::unique_ptr<BackgroundProcess> process;
  explicit BackgroundRun(std::vector<std::string> args) {
    std::vector<std::string> argv = {UringloadBinary(), "run", "-q", "--json", json_path};
    argv.insert(argv.end(), args.begin(), args.end());
    process = std::make_unique<BackgroundProcess>(argv);
  }
  ~BackgroundRun() { unlink(json_path.c_str()); }
};

TEST(FaultMatrixTest, ServerKilledThenRestartedMidRun) {
  auto first = std::make_unique<UringloadServer>(std::vector<std::string>{"--delay", "100ms"});
  ASSERT_TRUE(first->ok());
  uint16_t port = first->port();
  std::string url = first->Url("/{i}");
  BackgroundRun run({"-d", "4s", "-c", "50", "--connect-timeout", "1s", url});
  usleep(1'000'000);
  first.reset();  // SIGKILL: in-flight requests lose their connections.
  usleep(500'000);
  std::unique_ptr<BackgroundProcess> second =
      std::make_unique<BackgroundProcess>(std::vector<std::string>{
          UringloadBinary(), "serve", "-q", "--delay", "100ms", "--listen",
          "127.0.0.1:" + std::to_string(port), "--json", run.json_path + ".server"});
  // The killed server's ring may hold the port a moment longer; the new one waits for it.
  bool listening = false;
  for (int i = 0; i < 100 && !listening && second->running(); ++i) {
    listening = ListensOn(second->pid(), port);
    if (!listening) usleep(50'000);
  }
  ASSERT_TRUE(listening);
  ASSERT_EQ(run.process->Wait(30), 0);  // The run ends normally.
  second->Stop(SIGTERM);
  FlatJson j = ReadJson(run.json_path);
  FlatJson server = ReadJson(run.json_path + ".server");
  unlink((run.json_path + ".server").c_str());
  uint64_t started = JsonCount(j, "requests.started");
  EXPECT_EQ(Outcomes(j), started);
  EXPECT_GT(JsonCount(j, "outcomes.reset"), 0u);          // In flight when it died.
  EXPECT_GT(JsonCount(j, "outcomes.connect_error"), 0u);  // While it was gone.
  uint64_t after_restart = JsonCount(server, "requests.answered");
  EXPECT_GT(after_restart, 500u);  // The run recovered: ~2 s at 50 / 100 ms.
  EXPECT_GT(JsonCount(j, "outcomes.ok"), after_restart);
}

TEST(FaultMatrixTest, EveryFaultKindAtOnce) {
  UringloadServer server({"--fault-reset", "0.02", "--fault-partial", "0.03", "--fault-malformed",
                          "0.04", "--fault-stall", "0.01", "--fault-status", "503",
                          "--fault-status-rate", "0.05", "--seed", "9"});
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "20000", "-c", "200", "--timeout", "1s", server.Url("/{i}")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  FlatJson s;
  ASSERT_EQ(server.Stop(&s), 0);
  const FlatJson& j = run.json;
  EXPECT_EQ(Outcomes(j), 20000u);
  EXPECT_EQ(JsonCount(j, "outcomes.reset"), JsonCount(s, "faults.reset"));
  EXPECT_EQ(JsonCount(j, "outcomes.parse_error"),
            JsonCount(s, "faults.partial") + JsonCount(s, "faults.malformed"));
  EXPECT_EQ(JsonCount(j, "outcomes.timeout"), JsonCount(s, "faults.stall"));
  EXPECT_EQ(JsonCount(j, "status_codes.503"), JsonCount(s, "faults.status"));
  EXPECT_EQ(JsonCount(j, "outcomes.ok"), JsonCount(s, "requests.answered"));
  EXPECT_GT(JsonCount(s, "faults.stall"), 0u);
}

TEST(FaultMatrixTest, DribblingServerTimesOutOnTime) {
  MisbehavingServer slow(MisbehavingServer::Mode::kDribble, 100);
  RunOutput run = RunUringload({"-n", "20", "-c", "10", "--timeout", "500ms", slow.Url()});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.timeout"), 20u);
  double duration = std::stod(run.json.at("duration_seconds"));
  EXPECT_GT(duration, 0.95);  // Two waves of 500 ms...
  EXPECT_LT(duration, 1.5);   // ...fired on time (the response needs 4 s).
}

TEST(FaultMatrixTest, OversizedHeadersAreAParseError) {
  MisbehavingServer huge(MisbehavingServer::Mode::kHugeHeaders);
  RunOutput run = RunUringload({"-n", "20", "-c", "5", "--timeout", "5s", huge.Url()});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.parse_error"), 20u);
}

TEST(FaultMatrixTest, BodiesLargerThanTheBufferPoolArriveWhole) {
  // 4 MiB bodies through 64 receive buffers of 1 KiB: buffers are returned as they are parsed.
  UringloadServer server({"--body-size", "4194304"});
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-n", "40", "-c", "4", "-t", "1", server.Url("/")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 40u);
  EXPECT_GT(JsonCount(run.json, "bytes.received"), 40u * 4194304u);
}

TEST(FaultMatrixTest, PortExhaustionIsAConnectErrorWithItsCause) {
  // A private network namespace with only 8 ephemeral ports.
  char path[] = "/tmp/uringload-ports-XXXXXX";
  close(mkstemp(path));
  std::string bin = UringloadBinary();
  std::string script =
      "set -e; ip link set lo up; echo '40000 40007' > /proc/sys/net/ipv4/ip_local_port_range; " +
      bin + " serve -q --listen 127.0.0.1:18999 --delay 300ms & s=$!; sleep 0.3; " + bin +
      " run -q -n 200 -c 16 -t 1 --json " + path + " http://127.0.0.1:18999/; kill $s";
  ProcessResult r = RunProcess({"unshare", "-n", "bash", "-c", script}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  FlatJson j = ReadJson(path);
  unlink(path);
  EXPECT_EQ(Outcomes(j), 200u);
  EXPECT_GT(JsonCount(j, "outcomes.ok"), 0u);
  EXPECT_GT(JsonCount(j, "outcomes.connect_error"), 0u);
  EXPECT_EQ(j["errors.0.outcome"], "connect_error");
  EXPECT_EQ(j["errors.0.message"], "Cannot assign requested address");
}

TEST(FaultMatrixTest, FullDescriptorTableIsAConnectErrorWithItsCause) {
  // RLIMIT_NOFILE 16 with fds 0-14 taken: the loader and then the ring get fd 15, and binding
  // a --source address needs one more normal socket. Inherited fds are closed first so the
  // count is exact wherever the test runs. (The JSON goes to stdout: no fd for a file.)
  if (BinaryIsChecked()) GTEST_SKIP() << "sanitizer runtimes need free descriptors of their own";
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  std::string script =
      "for f in /proc/self/fd/*; do n=${f##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\" "
      "2>/dev/null; done; ulimit -n 16; for n in 3 4 5 6 7 8 9 10 11 12 13 14; do "
      "eval \"exec $n</dev/null\"; done; exec " +
      std::string(UringloadBinary()) + " run -n 50 -c 4 -t 1 --source 127.0.0.1 --json - " +
      server.Url("/");
  ProcessResult r = RunProcess({"bash", "-c", script});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<FlatJson> j = FlattenJson(r.out);
  ASSERT_TRUE(j.ok()) << r.out;
  EXPECT_EQ(JsonCount(*j, "outcomes.connect_error"), 50u);
  EXPECT_EQ((*j)["errors.0.message"], "Too many open files");
}

class StopSignal : public ::testing::TestWithParam<int> {};

TEST_P(StopSignal, StopsWithin2sWritesTheResultAndExits128PlusSignal) {
  int sig = GetParam();
  UringloadServer server({"--fault-stall", "0.5"});  // Half the requests never finish.
  ASSERT_TRUE(server.ok());
  BackgroundRun run({"-n", "10000000", "-c", "50", "--timeout", "60s", server.Url("/{i}")});
  usleep(700'000);
  double sent = Now();
  EXPECT_EQ(run.process->Stop(sig), 128 + sig);
  EXPECT_LT(Now() - sent, 3.0);  // 2 s grace for in-flight requests, then they are aborted.
  FlatJson j = ReadJson(run.json_path);
  EXPECT_EQ(j["interrupted"], "true");
  EXPECT_EQ(Outcomes(j), JsonCount(j, "requests.started"));
  EXPECT_GT(JsonCount(j, "outcomes.timeout"), 0u);
  EXPECT_EQ(j["errors.0.message"], "Operation canceled");
}

INSTANTIATE_TEST_SUITE_P(IntAndTerm, StopSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

TEST(FaultMatrixTest, SecondSigintExitsAtOnce) {
  UringloadServer server({"--fault-stall", "1"});
  ASSERT_TRUE(server.ok());
  BackgroundRun run({"-n", "1000", "-c", "50", "--timeout", "60s", server.Url("/")});
  usleep(500'000);
  kill(run.process->pid(), SIGINT);
  // Two SIGINTs pending at once are one: the second is sent only after the run took the
  // first (a checked binary still starting up once made them one, and the run stopped
  // gracefully after its whole 2 s grace).
  for (int i = 0; i < 100 && SignalPending(run.process->pid(), SIGINT); ++i) usleep(50'000);
  ASSERT_FALSE(SignalPending(run.process->pid(), SIGINT)) << "the run never took the first";
  usleep(200'000);
  double sent = Now();
  EXPECT_EQ(run.process->Stop(SIGINT), 130);
  EXPECT_LT(Now() - sent, 1.5);  // Not the rest of the 2 s grace (1.8 s); slack for TSan.
}

}  // namespace
}  // namespace uringload::testing
