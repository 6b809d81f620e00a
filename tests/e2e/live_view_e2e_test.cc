// End-to-end: the live status line appears on a terminal (a pty made by script(1)) and never
// when stderr is not one, or with -q.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/process.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

std::string RunOnTerminal(const std::string& args) {
  ProcessResult r =
      RunProcess({"script", "-qfec",
                  std::string(UringloadBinary()) + " run " + args + " >/dev/null", "/dev/null"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(LiveViewE2ETest, ATerminalGetsTheLastSecondsRateAndProgress) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  std::string shown = RunOnTerminal("-R 400 -d 2s " + server.Url("/"));
  EXPECT_NE(shown.find("\r[####"), std::string::npos) << shown;
  // The rate of the seconds behind, not an average with the zero before the first request:
  // every update after the first (0 req/s, at the start) within 5% of -R (seen: 399-406).
  std::vector<int> rates;
  std::regex rate(R"( (\d+) req/s)");
  for (auto it = std::sregex_iterator(shown.begin(), shown.end(), rate);
       it != std::sregex_iterator(); ++it) {
    rates.push_back(std::stoi((*it)[1]));
  }
  ASSERT_GE(rates.size(), 4u) << shown;
  // An ASan binary's reporter wakes later, and a late second counts a little more (422 seen).
  int margin = MeasuresPrecisely() ? 20 : 40;
  for (size_t i = 1; i < rates.size(); ++i) {
    EXPECT_GE(rates[i], 400 - margin) << i << ": " << shown;
    EXPECT_LE(rates[i], 400 + margin) << i << ": " << shown;
  }
  EXPECT_NE(shown.find("left"), std::string::npos) << shown;
  EXPECT_NE(shown.find("p99 "), std::string::npos) << shown;
  EXPECT_EQ(RunOnTerminal("-q -R 400 -d 1s " + server.Url("/")).find("req/s"), std::string::npos);
}

TEST(LiveViewE2ETest, NoStatusLineWhenStderrIsNotATerminal) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  ProcessResult r =
      RunProcess({UringloadBinary(), "run", "-R", "400", "-d", "1s", server.Url("/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Latency:"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace uringload::testing
