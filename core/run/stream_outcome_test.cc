#include "core/run/stream_outcome.h"

#include <gtest/gtest.h>

namespace uringload::core {
namespace {

constexpr StreamRules kRules{
    .malformed = ParseFailure::kHttp2Malformed,
    .incomplete = ParseFailure::kHttp2Incomplete,
    .max_retries = 2,
    .reset_cause = [](uint64_t code) { return 1000 + static_cast<int>(code); }};

TEST(StreamOutcomeTest, AWholeResponseIsOk) {
  StreamVerdict v = JudgeStreamEnd({.status = 200, .complete = true}, 0, kRules);
  EXPECT_TRUE(v.response);
  EXPECT_FALSE(v.retry);
  EXPECT_EQ(v.outcome, Outcome::kOk);
}

TEST(StreamOutcomeTest, AGrpcCallWithoutItsStatusOrCutInAMessageIsAParseErrorOfAResponse) {
  StreamVerdict no_status = JudgeStreamEnd({.complete = true, .grpc = true}, 0, kRules);
  EXPECT_TRUE(no_status.response);
  EXPECT_EQ(no_status.outcome, Outcome::kParseError);
  EXPECT_EQ(no_status.error, static_cast<int>(ParseFailure::kGrpcNoStatus));
  StreamVerdict cut = JudgeStreamEnd(
      {.complete = true, .grpc = true, .grpc_status = 0, .grpc_malformed = true}, 0, kRules);
  EXPECT_EQ(cut.error, static_cast<int>(ParseFailure::kGrpcMalformed));
  StreamVerdict ok = JudgeStreamEnd({.complete = true, .grpc = true, .grpc_status = 5}, 0, kRules);
  EXPECT_EQ(ok.outcome, Outcome::kOk);
}

TEST(StreamOutcomeTest, TheProtocolsRowNamesTheParseFailures) {
  EXPECT_EQ(JudgeStreamEnd({.malformed = true, .reset = true}, 0, kRules).error,
            static_cast<int>(ParseFailure::kHttp2Malformed));
  EXPECT_EQ(JudgeStreamEnd({}, 0, kRules).error, static_cast<int>(ParseFailure::kHttp2Incomplete));
}

TEST(StreamOutcomeTest, AnUnprocessedRequestGoesAgainUpToTheRowsBoundThenIsAReset) {
  proto::StreamEnd refused{.error_code = 7, .unprocessed = true, .reset = true};
  EXPECT_TRUE(JudgeStreamEnd(refused, 0, kRules).retry);
  EXPECT_TRUE(JudgeStreamEnd(refused, 1, kRules).retry);
  StreamVerdict last = JudgeStreamEnd(refused, 2, kRules);
  EXPECT_FALSE(last.retry);
  EXPECT_EQ(last.outcome, Outcome::kReset);
  EXPECT_EQ(last.error, 1007);
  // Unprocessed without an error code (above a GOAWAY's last stream), out of retries.
  EXPECT_EQ(JudgeStreamEnd({.unprocessed = true}, 2, kRules).error,
            static_cast<int>(ParseFailure::kHttp2Incomplete));
}

}  // namespace
}  // namespace uringload::core
