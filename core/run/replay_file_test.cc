#include "core/run/replay_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/run/arrival_schedule.h"

namespace uringload::core {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(ReplayFileTest, CombinedLogLinesAreSortedByTheirTimes) {
  std::string log =
      "10.0.0.1 - - [05/Dec/2026:10:00:01 +0000] \"GET /b?x=1 HTTP/1.1\" 200 5 \"-\" \"ua\"\n"
      "\n"
      "10.0.0.1 - bob [05/Dec/2026:10:00:00.250 +0000] \"POST http://h.test/a HTTP/2.0\" 201 0\n"
      "10.0.0.2 - - [05/Dec/2026:11:00:00 +0100] \"DELETE /c HTTP/1.1\" 204 0 \"-\" \"ua\"\r\n";
  absl::StatusOr<std::vector<ReplayLine>> lines = ParseReplayFile(log, "access.log");
  ASSERT_TRUE(lines.ok()) << lines.status();
  ASSERT_EQ(lines->size(), 3u);
  // 11:00 at +0100 is 10:00 UTC, the earliest.
  EXPECT_EQ((*lines)[0].method, "DELETE");
  EXPECT_EQ((*lines)[0].offset_ns, 0);
  EXPECT_EQ((*lines)[0].line, 4);
  EXPECT_EQ((*lines)[1].target, "/a");
  EXPECT_EQ((*lines)[1].offset_ns, 250 * kMs);
  EXPECT_EQ((*lines)[2].target, "/b?x=1");
  EXPECT_EQ((*lines)[2].offset_ns, 1000 * kMs);
}

TEST(ReplayFileTest, NdjsonLinesTakeTheirTimestampMethodAndPath) {
  std::string log = R"({"timestamp": "2026-12-05T10:00:00.5Z", "method": "PUT", "path": "/x"})"
                    "\n"
                    R"({"timestamp": 1796464800.0, "url": "https://h.test/y?z"})"
                    "\n";
  absl::StatusOr<std::vector<ReplayLine>> lines = ParseReplayFile(log, "log.ndjson");
  ASSERT_TRUE(lines.ok()) << lines.status();
  ASSERT_EQ(lines->size(), 2u);
  EXPECT_EQ((*lines)[0].target, "/y?z");
  EXPECT_EQ((*lines)[0].method, "GET");
  EXPECT_EQ((*lines)[1].method, "PUT");
  EXPECT_EQ((*lines)[1].offset_ns, 500 * kMs);  // 1796464800 is 2026-12-05T10:00:00Z.
}

TEST(ReplayFileTest, BadLinesNameFileAndLine) {
  EXPECT_EQ(ParseReplayFile("no time here\n", "a.log").status().message(),
            "a.log:1: no [time] (combined log format)");
  EXPECT_EQ(ParseReplayFile("x [05/Dec/2026:10:00:00 +0000] \"GET\"\n", "a.log").status().message(),
            "a.log:1: no \"METHOD PATH PROTOCOL\" request");
  EXPECT_EQ(
      ParseReplayFile("{\"timestamp\": 1}\n{\"path\": \"/a\"}\n", "b.ndjson").status().message(),
      "b.ndjson:1: no \"path\" or \"url\"");
  EXPECT_EQ(ParseReplayFile("\n\n", "c.log").status().message(), "c.log: no request to replay");
  EXPECT_EQ(*ParseReplaySpeed("2x"), 2.0);
  EXPECT_EQ(*ParseReplaySpeed("0.5"), 0.5);
  EXPECT_FALSE(ParseReplaySpeed("0x").ok());
  EXPECT_FALSE(ParseReplaySpeed("fast").ok());
}

TEST(ReplayFileTest, AScheduleOfOffsetsIsDueAtEachOne) {
  ArrivalSchedule schedule(std::make_shared<const std::vector<int64_t>>(
      std::vector<int64_t>{0, 10 * kMs, 10 * kMs, 25 * kMs}));
  EXPECT_EQ(schedule.OffsetNs(2), 10 * kMs);
  EXPECT_EQ(schedule.DueBy(-1), 0u);
  EXPECT_EQ(schedule.DueBy(0), 1u);
  EXPECT_EQ(schedule.DueBy(10 * kMs), 3u);
  EXPECT_EQ(schedule.DueBy(24 * kMs), 3u);
  EXPECT_EQ(schedule.DueBy(1000 * kMs), 4u);
}

}  // namespace
}  // namespace uringload::core
