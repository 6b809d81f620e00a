// End-to-end: bad invocations of `uringload run` exit 2 with one line naming the problem.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/process.h"

namespace uringload::testing {
namespace {

struct BadInvocation {
  std::vector<std::string> args;
  std::string expected;  // Part of the one-line message.
};

TEST(RunCliE2ETest, BadInputExitsTwoWithOneLine) {
  std::vector<BadInvocation> cases = {
      {{"run", "https://127.0.0.1/"}, "not supported yet"},
      {{"run", "ftp://127.0.0.1/"}, "invalid URL"},
      {{"run", "http://127.0.0.1:0/"}, "port"},
      {{"run", "http://127.0.0.1:70000/"}, "port"},
      {{"run", "-c", "0", "http://127.0.0.1/"}, "-c"},
      {{"run", "-n", "-1", "http://127.0.0.1/"}, "-n"},
      {{"run", "-n", "ten", "http://127.0.0.1/"}, "requests"},
      {{"run", "-d", "5x", "http://127.0.0.1/"}, "duration"},
      {{"run", "-H", "NoColon", "http://127.0.0.1/"}, "header"},
      {{"run", "--body-file", "/nonexistent", "http://127.0.0.1/"}, "--body-file"},
      {{"run", "--bogus", "http://127.0.0.1/"}, "bogus"},
      {{"run"}, "url"},
      {{}, "subcommand"},
  };
  for (const BadInvocation& c : cases) {
    std::vector<std::string> argv = {URINGLOAD_BINARY};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    ProcessResult r = RunProcess(argv, 10);
    std::string shown = argv.size() > 1 ? argv.back() : "(none)";
    EXPECT_EQ(r.exit_code, 2) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << shown << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << shown;
  }
}

}  // namespace
}  // namespace uringload::testing
