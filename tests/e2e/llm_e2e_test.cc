// End-to-end: --llm against an OpenAI-compatible streamed answer served by aiohttp (the test's
// handler: a role-only delta, an empty delta, then max_tokens content deltas, a finish chunk,
// the usage chunk unless asked not to, [DONE]). Prompts with quotes and commas reach the server
// as valid JSON; every token is counted exactly, from the usage chunk or from the deltas (and
// the JSON says which); TTFT holds the server's wait before the first token, ITL its gaps; the
// goodput bounds decide which answers are good, and a goodput threshold the exit. The times
// are checked only from below (the server's own waits), so the tests run beside others.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/support/stream_server.h"
#include "tests/support/temp_folder.h"

namespace uringload::testing {
namespace {

constexpr uint64_t kAnswers = 12;
constexpr uint64_t kTokens = 8;

class LlmE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ok());
    // Prompts of 19 and 16 bytes (as the server decodes them): 4 input tokens each by its
    // count (bytes / 4).
    std::ofstream(folder_.Path("prompts.csv"))
        << "prompt,n\n\"say \"\"hi\"\", then stop\",8\nplain prompt two,8\n";
  }
  RunOutput Run(const std::string& kind, const std::string& query,
                std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"-n",           std::to_string(kAnswers),
                                     "-c",           "3",
                                     "--llm",        kind,
                                     "--model",      "test-model",
                                     "--data",       folder_.Path("prompts.csv"),
                                     "--max-tokens", "n"};
    args.insert(args.end(), more.begin(), more.end());
    std::string path = kind == "chat" ? "/v1/chat/completions" : "/v1/completions";
    args.push_back(server_.Url(path + query));
    return RunUringload(args);
  }
  void ExpectTokens(const RunOutput& run, const std::string& from) {
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), kAnswers);
    EXPECT_EQ(JsonCount(run.json, "llm.answers"), kAnswers);
    EXPECT_EQ(JsonCount(run.json, "llm.output_tokens"), kAnswers * kTokens);
    EXPECT_EQ(run.json.at("llm.tokens_from"), from);
    EXPECT_EQ(JsonCount(run.json, "llm.ttft_histogram.count"), kAnswers);
    EXPECT_EQ(JsonCount(run.json, "llm.itl_histogram.count"), kAnswers * (kTokens - 1));
    EXPECT_EQ(JsonCount(run.json, "llm.tpot_histogram.count"), kAnswers);
  }

  StreamServer server_;
  TempFolder folder_{"uringload-llm"};
};

TEST_F(LlmE2ETest, ChatTokensFromTheUsageChunk) {
  RunOutput run = Run("chat", "?first_ms=30&gap_ms=5");
  ExpectTokens(run, "usage");
  EXPECT_EQ(JsonCount(run.json, "llm.usage_reported"), kAnswers);
  EXPECT_EQ(JsonCount(run.json, "llm.input_tokens"), kAnswers / 2 * (4 + 4));
  // The server waited 30 ms before the first token and 5 ms between tokens.
  EXPECT_GE(JsonNumber(run.json, "llm.ttft_seconds.p50"), 0.030 * 0.95);
  EXPECT_GE(JsonNumber(run.json, "llm.itl_seconds.p50"), 0.005 * 0.95);
  EXPECT_GE(JsonNumber(run.json, "llm.tpot_seconds.p50"), 0.005 * 0.95);
  FlatJson counts = server_.Stop();
  EXPECT_EQ(JsonCount(counts, "requests"), kAnswers);
  EXPECT_EQ(JsonCount(counts, "bad_json"), 0u);
  EXPECT_EQ(JsonCount(counts, "prompt_tokens"), kAnswers / 2 * (4 + 4));
}

TEST_F(LlmE2ETest, WithoutUsageTheContentDeltasAreCounted) {
  RunOutput run = Run("chat", "?usage=0&gap_ms=1");
  ExpectTokens(run, "deltas");
  EXPECT_EQ(JsonCount(run.json, "llm.usage_reported"), 0u);
  EXPECT_EQ(JsonCount(run.json, "llm.input_tokens"), 0u);
}

TEST_F(LlmE2ETest, CompletionsAnswersToo) {
  ExpectTokens(Run("completions", "?gap_ms=1"), "usage");
  EXPECT_EQ(JsonCount(server_.Stop(), "bad_json"), 0u);
}

TEST_F(LlmE2ETest, GoodputCountsTheAnswersWithinEveryBound) {
  RunOutput all = Run("chat", "?first_ms=20&gap_ms=1", {"--goodput", "ttft<10s"});
  ExpectTokens(all, "usage");
  EXPECT_EQ(JsonCount(all.json, "llm.good"), kAnswers);
  EXPECT_EQ(JsonNumber(all.json, "llm.goodput"), 1.0);
  // No answer's first token comes within 1 ms of its start when the server waits 20 ms.
  RunOutput none =
      Run("chat", "?first_ms=20&gap_ms=1",
          {"--goodput", "ttft<1ms", "--goodput", "tpot<10s", "--fail-if", "goodput<95%"});
  EXPECT_EQ(none.process.exit_code, 3) << none.process.err;
  EXPECT_EQ(JsonCount(none.json, "llm.good"), 0u);
  EXPECT_EQ(JsonNumber(none.json, "llm.goodput"), 0.0);
}

TEST_F(LlmE2ETest, BadInputIsRefusedBeforeAnyTraffic) {
  for (std::vector<std::string> args : {
           std::vector<std::string>{"--llm", "chat", "--data", folder_.Path("prompts.csv")},
           std::vector<std::string>{"--llm", "chat", "--model", "m"},
           std::vector<std::string>{"--llm", "embeddings", "--model", "m", "--data",
                                    folder_.Path("prompts.csv")},
           std::vector<std::string>{"--llm", "chat", "--model", "m", "--data",
                                    folder_.Path("prompts.csv"), "--goodput", "ttft>1s"},
           std::vector<std::string>{"--goodput", "ttft<1s"},
           std::vector<std::string>{"--llm", "chat", "--model", "m", "--data",
                                    folder_.Path("prompts.csv"), "--data-field", "question"},
       }) {
    args.insert(args.end(), {"-n", "2", server_.Url("/v1/chat/completions")});
    RunOutput run = RunUringload(args);
    EXPECT_EQ(run.process.exit_code, 2) << args[1] << " " << run.process.err;
    EXPECT_EQ(std::count(run.process.err.begin(), run.process.err.end(), '\n'), 1)
        << run.process.err;
  }
  EXPECT_EQ(JsonCount(server_.Stop(), "requests"), 0u);
}

}  // namespace
}  // namespace uringload::testing
