// --llm chat|completions: an OpenAI-compatible inference server's streamed answers, measured as
// its users judge them. The request is built here (a POST of JSON to /v1/chat/completions or
// /v1/completions with `stream: true` and the usage asked for, its prompt from a --data column
// escaped for JSON); the answer's tokens are read by the stream meter (core/run/stream_meter.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::core {

struct RunOptions;

// One --goodput bound: a request is good when its measure is below it.
struct GoodputBound {
  enum class Measure : uint8_t { kTtft, kTpot, kItl, kE2e };
  Measure measure = Measure::kTtft;
  int64_t below_ns = 0;
  std::string expr;  // As given.
};

struct LlmPlan {
  bool chat = true;  // chat: /v1/chat/completions; else /v1/completions.
  std::vector<GoodputBound> goodput;
};

// `options` with the request --llm asks for (method, header, body, URL path, --stream sse), or
// InvalidArgument naming what is missing or wrong (no --data, no --model, a bad --max-tokens).
absl::StatusOr<RunOptions> WithLlmRequest(const RunOptions& options);
// The measures' plan: the kind and the --goodput bounds ("ttft<200ms", "tpot<50ms",
// "itl<100ms", "e2e<10s").
absl::StatusOr<LlmPlan> MakeLlmPlan(const RunOptions& options);

}  // namespace uringload::core
