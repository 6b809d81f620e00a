#include "core/run/response_checks.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

TEST(ResponseChecksTest, StatusesAreCodesAndClasses) {
  absl::StatusOr<StatusSet> set = ParseExpectedStatuses("200, 201,3xx");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_TRUE((*set)[200] && (*set)[201] && (*set)[300] && (*set)[399]);
  EXPECT_FALSE((*set)[202] || (*set)[299] || (*set)[400]);
  EXPECT_EQ(set->count(), 102u);
  for (const char* bad : {"", "20", "2000", "0xx", "abc", "200,", "2x0", "099"}) {
    absl::StatusOr<StatusSet> s = ParseExpectedStatuses(bad);
    EXPECT_FALSE(s.ok()) << bad;
  }
  EXPECT_NE(ParseExpectedStatuses("200,abc").status().message().find("'abc'"), std::string::npos);
}

// The status is judged first; the body only when a text is expected; without checks every
// complete response passes.
TEST(ResponseChecksTest, JudgeNamesTheFirstExpectationMissed) {
  absl::StatusOr<ResponseChecks> checks = MakeResponseChecks("2xx", "\"items\"");
  ASSERT_TRUE(checks.ok());
  EXPECT_EQ(checks->Judge(200, true), std::nullopt);
  EXPECT_EQ(checks->Judge(503, true), CheckFailure::kStatus);
  EXPECT_EQ(checks->Judge(503, false), CheckFailure::kStatus);
  EXPECT_EQ(checks->Judge(204, false), CheckFailure::kBodyContains);
  absl::StatusOr<ResponseChecks> none = MakeResponseChecks(std::nullopt, std::nullopt);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->any());
  EXPECT_EQ(none->Judge(500, false), std::nullopt);
  EXPECT_FALSE(MakeResponseChecks(std::nullopt, "").ok());
}

// --expect-events: at least one event, and only where bodies are read as events.
TEST(ResponseChecksTest, ExpectedEventsNeedStreams) {
  absl::StatusOr<ResponseChecks> checks = MakeResponseChecks(std::nullopt, std::nullopt, 3, true);
  ASSERT_TRUE(checks.ok()) << checks.status();
  EXPECT_TRUE(checks->any());
  EXPECT_EQ(checks->Judge(200, false, 2), CheckFailure::kEvents);
  EXPECT_EQ(checks->Judge(200, false, 3), std::nullopt);
  EXPECT_FALSE(MakeResponseChecks(std::nullopt, std::nullopt, 0, true).ok());
  EXPECT_FALSE(MakeResponseChecks(std::nullopt, std::nullopt, 3, false).ok());
}

}  // namespace
}  // namespace uringload::core
