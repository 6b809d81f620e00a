// End-to-end: the per-second timeline adds up to the totals, and warm-up requests are sent but
// not measured. Both follow the clock: they run alone.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"

namespace uringload::testing {
namespace {

using Json = nlohmann::json;

std::vector<Json> ReadLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<Json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(Json::parse(line));
  return lines;
}

TEST(TimelineE2ETest, IntervalsAreContiguousAndAddUpToTheTotals) {
  UringloadServer server({"--delay", "2ms"});
  ASSERT_TRUE(server.ok());
  std::string path = ::testing::TempDir() + "/timeline.ndjson";
  RunOutput run = RunUringload(
      {"-R", "500", "-d", "2.5s", "--interval", "500ms", "--timeline", path, server.Url("/")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  std::vector<Json> rows = ReadLines(path);
  ASSERT_GE(rows.size(), 5u);
  uint64_t started = 0, ok = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i + 1 < rows.size()) {
      EXPECT_DOUBLE_EQ(rows[i]["t"].get<double>(), 0.5 * (i + 1)) << i;
    }
    started += rows[i]["started"].get<uint64_t>();
    ok += rows[i]["ok"].get<uint64_t>();
    EXPECT_EQ(rows[i]["completed"].get<uint64_t>(), rows[i]["ok"].get<uint64_t>());
  }
  EXPECT_EQ(started, JsonCount(run.json, "requests.started"));
  EXPECT_EQ(ok, JsonCount(run.json, "outcomes.ok"));
  EXPECT_NEAR(rows[2]["rps"].get<double>(), 500, 25);
  // The run's wall clock, RFC 3339 with microseconds.
  EXPECT_TRUE(std::regex_match(run.json.at("started_at"),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)")))
      << run.json.at("started_at");
  EXPECT_LT(run.json.at("started_at"), run.json.at("ended_at"));
  EXPECT_GE(rows[2]["p50"].get<double>(), 0.002);

  std::string csv = ::testing::TempDir() + "/timeline.csv";
  run = RunUringload({"-n", "300", "--timeline", csv, server.Url("/")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("t,seconds,started,completed,ok,", 0), 0u) << header;
}

TEST(WarmupE2ETest, WarmupRequestsAreSentButNotMeasured) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload({"-R", "200", "-d", "2s", "--warmup", "1s", server.Url("/")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "warmup.requests"), 200u);
  EXPECT_EQ(JsonCount(run.json, "requests.started"), 200u);
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 400u);
}

}  // namespace
}  // namespace uringload::testing
