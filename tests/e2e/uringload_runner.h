// Runs the built `uringload` binary for end-to-end tests and reads back its JSON result.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/process.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {

struct RunOutput {
  ProcessResult process;
  FlatJson json;  // Empty when the run wrote none.
};

// A checked (sanitizer) binary runs every request several times slower: against it tests
// check counts, and measured rates and latencies only against the build users run.
inline bool MeasuresPrecisely() { return !BinaryIsChecked(); }

// `<wrapper...> uringload <command> <args> --json <tmp> --quiet`, with the JSON parsed;
// `wrapper` runs it (`nice -n 10 taskset -c 0`), or is empty.
inline RunOutput RunUringloadUnder(const std::vector<std::string>& wrapper,
                                   const std::string& command, std::vector<std::string> args,
                                   int timeout_seconds = 120) {
  char path[] = "/tmp/uringload-result-XXXXXX";
  close(mkstemp(path));
  std::vector<std::string> argv = wrapper;
  argv.insert(argv.end(), {UringloadBinary(), command});
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--json", path, "--quiet"});
  RunOutput out;
  out.process = RunProcess(argv, timeout_seconds);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path);
  if (!text.empty()) {
    absl::StatusOr<FlatJson> json = FlattenJson(text);
    if (json.ok()) out.json = *json;
  }
  return out;
}

// `uringload <command> <args> --json <tmp> --quiet`, with the JSON parsed.
inline RunOutput RunUringloadCommand(const std::string& command, std::vector<std::string> args,
                                     int timeout_seconds = 120) {
  return RunUringloadUnder({}, command, std::move(args), timeout_seconds);
}

// `uringload run <args> --json <tmp> --quiet`, with the JSON parsed.
inline RunOutput RunUringload(std::vector<std::string> args, int timeout_seconds = 120) {
  return RunUringloadCommand("run", std::move(args), timeout_seconds);
}

// The reason the client said another process starved it of CPU ("a worker waited 1.03 s for a
// CPU, 34% of its run: another process ran on CPU 0", or a cgroup's quota throttled it), in
// its stderr or its JSON (a run's generator.reason, a search step's why), or "".
inline std::string StarvedReason(const RunOutput& run) {
  auto starved = [](const std::string& text) -> std::string {
    for (const char* phrase : {"another process ran on", "throttled the client"}) {
      size_t at = text.find(phrase);
      if (at == std::string::npos) continue;
      size_t begin = text.rfind('\n', at);
      begin = begin == std::string::npos ? 0 : begin + 1;
      return text.substr(begin, text.find('\n', at) - begin);
    }
    return "";
  };
  if (std::string why = starved(run.process.err); !why.empty()) return why;
  for (const auto& [key, value] : run.json) {
    if (std::string why = starved(value); !why.empty()) return why;
  }
  return "";
}

// `var` = `run` (an expression giving a RunOutput), run again once when another process
// starved the client of CPU; starved again, the test is skipped with that reason (scripts/test
// counts and lists the skips at its end). The tool was right to say so, and its verdict then
// is the machine's, never a product defect, nor a pass.
#define URINGLOAD_RUN_UNLESS_STARVED(var, run)                                                  \
  RunOutput var = (run);                                                                        \
  if (!::uringload::testing::StarvedReason(var).empty()) var = (run);                           \
  if (std::string starved_why = ::uringload::testing::StarvedReason(var); !starved_why.empty()) \
  GTEST_SKIP() << "the client was starved twice: " << starved_why

// The run's error table ("count × message" per line), for failure messages.
inline std::string ErrorsOf(const FlatJson& j) {
  std::string text;
  for (int i = 0; j.count("errors." + std::to_string(i) + ".message"); ++i) {
    std::string at = "errors." + std::to_string(i);
    text += "\n  " + j.at(at + ".count") + " x " + j.at(at + ".message");
  }
  return text;
}

// A run of exactly n requests that all got 200: exit 0, every count n, no failure.
inline void ExpectAllOk(const RunOutput& run, uint64_t n) {
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  const FlatJson& j = run.json;
  EXPECT_EQ(JsonCount(j, "requests.planned"), n);
  EXPECT_EQ(JsonCount(j, "requests.started"), n);
  EXPECT_EQ(JsonCount(j, "requests.completed"), n);
  EXPECT_EQ(JsonCount(j, "outcomes.ok"), n);
  EXPECT_EQ(JsonCount(j, "status_codes.200"), n);
  for (const char* failure : {"timeout", "connect_error", "reset", "parse_error", "check_failed"}) {
    EXPECT_EQ(JsonCount(j, std::string("outcomes.") + failure), 0u) << failure << ErrorsOf(j);
  }
}

}  // namespace uringload::testing
