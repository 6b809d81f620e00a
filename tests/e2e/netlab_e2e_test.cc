// End-to-end tests of the laboratory itself (scripts/netlab): its extra source addresses of
// both families reach side B across the link; interrupted, it leaves no namespace, link or
// server behind; --netem refuses what netem lacks and says when the kernel has none; names
// that exist are refused. The numbers over links are in link_e2e_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tests/e2e/netlab_lab.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/support/netlab.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

// --source over the link, IPv4 and IPv6: connections come from side A's four extra
// addresses, round-robin; the client closes its keep-alive connections at the end, so each
// leaves a TIME_WAIT socket on its source address, which `ss` lists.
TEST(NetLabE2ETest, SourceAddressesOfBothFamiliesCrossTheLink) {
  NetLab lab({"--delay", "1ms"});
  ASSERT_TRUE(lab.ok());
  LabServer server(lab, {});
  ASSERT_TRUE(server.ok());
  struct Case {
    std::string sources, host, first_source;
  };
  for (const Case& c :
       {Case{NetLab::kSourcesA, NetLab::kAddressB, "198.18.1."},
        Case{NetLab::kSourcesA6, "[" + std::string(NetLab::kAddressB6) + "]", "[2001:2:0:1::"}}) {
    RunOutput run =
        RunIn(lab.a(), {"-n", "200", "-c", "8", "--source", c.sources, Url("http", c.host)});
    ExpectAllOk(run, 200);
    ProcessResult ss = RunProcess(NetLab::In(lab.a(), {"ss", "-Htn", "state", "time-wait"}));
    ASSERT_EQ(ss.exit_code, 0) << ss.err;
    std::map<std::string, int> by_source;
    for (absl::string_view line : absl::StrSplit(ss.out, '\n', absl::SkipEmpty())) {
      std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
      ASSERT_GE(fields.size(), 4u) << line;
      std::string local(fields[2]);
      if (!absl::StartsWith(local, c.first_source)) continue;
      ++by_source[local.substr(0, local.rfind(':'))];
    }
    // 8 connections over 4 sources: 2 each.
    ASSERT_EQ(by_source.size(), 4u) << ss.out;
    for (const auto& [source, count] : by_source) EXPECT_EQ(count, 2) << source;
  }
  EXPECT_EQ(server.StopAndCountAnswered(), 400u);
  EXPECT_EQ(lab.Finish(), 0);
  EXPECT_FALSE(lab.LeftBehind());
}

// Interrupted (Ctrl-C, a job scheduler's SIGTERM) while a server runs inside it, the
// laboratory still takes everything down: the server, the link, both namespaces and their
// TUN devices.
TEST(NetLabE2ETest, AnInterruptedLaboratoryLeavesNothingBehind) {
  for (int signal : {SIGINT, SIGTERM}) {
    NetLab lab({"--delay", "1ms"});
    ASSERT_TRUE(lab.ok());
    LabServer server(lab, {});
    ASSERT_TRUE(server.ok());
    lab.Signal(signal);
    EXPECT_EQ(lab.Finish(), 128 + signal);
    EXPECT_FALSE(lab.LeftBehind()) << signal;
    EXPECT_FALSE(server.running()) << signal;
  }
}

// --netem puts the kernel's netem on a veth pair instead of the built-in link, with the same
// flags. Flags netem lacks are refused before anything is made. On a kernel without netem
// (CONFIG_NET_SCH_NETEM unset, as on the machine this project is measured on) the laboratory
// says so in one line, exits 2 and leaves nothing; with netem, a 25 ms delay each way is the
// same 50 ms round trip as over the built-in link.
TEST(NetLabE2ETest, NetemGivesTheSameRoundTripOrSaysItIsMissing) {
  std::string name = "ul" + std::to_string(getpid()) + "-n";
  auto netlab = [&](std::vector<std::string> flags, const std::string& script) {
    std::vector<std::string> argv = {"env",
                                     std::string("URINGLOAD_BIN=") + UringloadBinary(),
                                     URINGLOAD_SOURCE_DIR "/scripts/netlab",
                                     "--name",
                                     name,
                                     "--netem"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"--", "bash", "-c", script});
    return RunProcess(argv, 120);
  };
  auto left_behind = [&] {
    return std::filesystem::exists("/var/run/netns/" + name + "-a") ||
           std::filesystem::exists("/var/run/netns/" + name + "-b");
  };
  for (auto [flag, value] : {std::pair{"--seed", "7"}, std::pair{"--json", "/tmp/x.json"},
                             std::pair{"--queue", "150000B"}}) {
    ProcessResult refused = netlab({"--delay", "1ms", flag, value}, "true");
    EXPECT_EQ(refused.exit_code, 2) << flag;
    EXPECT_NE(refused.err.find("netlab --netem: "), std::string::npos) << refused.err;
    EXPECT_FALSE(left_behind()) << flag;
  }
  char path[] = "/tmp/uringload-netem-XXXXXX";
  close(mkstemp(path));
  std::string bin = UringloadBinary();
  ProcessResult lab = netlab(
      {"--delay", "25ms"},
      "ip netns exec \"$NETLAB_B\" " + bin + " serve -q -t 1 --listen \"$NETLAB_B_IP:8080\" & " +
          "sleep 0.5; ip netns exec \"$NETLAB_A\" " + bin + " run -q --json " + path +
          " -n 100 -c 1 \"http://$NETLAB_B_IP:8080/\"; s=$?; kill %1; exit $s");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path);
  EXPECT_FALSE(left_behind());
  if (lab.exit_code == 2 && lab.err.find("netlab: netem is not available here (tc: ") == 0) {
    EXPECT_EQ(std::count(lab.err.begin(), lab.err.end(), '\n'), 1) << lab.err;
    GTEST_SKIP() << "no netem on this kernel: " << lab.err;
  }
  ASSERT_EQ(lab.exit_code, 0) << lab.err;
  absl::StatusOr<FlatJson> run = FlattenJson(text);
  ASSERT_TRUE(run.ok()) << text;
  EXPECT_EQ(JsonCount(*run, "outcomes.ok"), 100u);
  EXPECT_NEAR(JsonNumber(*run, "latency_seconds.p50"), 0.050, 0.02 * 0.050);
}

// The laboratory refuses names that exist, and leaves them alone.
TEST(NetLabE2ETest, RefusesANamespaceThatExists) {
  std::string name = "ul" + std::to_string(getpid()) + "-x";
  ASSERT_EQ(RunProcess({"ip", "netns", "add", name + "-b"}).exit_code, 0);
  ProcessResult lab = RunProcess(
      {URINGLOAD_SOURCE_DIR "/scripts/netlab", "--name", name, "--delay", "1ms", "--", "true"});
  EXPECT_EQ(lab.exit_code, 2);
  EXPECT_NE(lab.err.find("network namespace " + name + "-b exists"), std::string::npos) << lab.err;
  EXPECT_FALSE(std::filesystem::exists("/var/run/netns/" + name + "-a"));
  EXPECT_TRUE(std::filesystem::exists("/var/run/netns/" + name + "-b"));
  RunProcess({"ip", "netns", "del", name + "-b"});
}

}  // namespace
}  // namespace uringload::testing
