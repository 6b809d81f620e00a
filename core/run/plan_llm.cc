#include "core/run/plan_llm.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/run/run_plan.h"
#include "net/base/absl_view.h"

namespace uringload::core {
namespace {

// The URL with the API's path when it names none ("http://host:8000" or ".../").
std::string WithApiPath(const std::string& url, bool chat) {
  size_t scheme = url.find("://");
  size_t path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (path != std::string::npos && url.substr(path) != "/") return url;
  std::string base = path == std::string::npos ? url : url.substr(0, path);
  return base + (chat ? "/v1/chat/completions" : "/v1/completions");
}

}  // namespace

absl::StatusOr<RunOptions> WithLlmRequest(const RunOptions& options) {
  RunOptions o = options;
  bool chat = *options.llm == "chat";
  if (!chat && *options.llm != "completions") {
    return absl::InvalidArgumentError(
        absl::StrCat("--llm must be chat or completions, got '", *options.llm, "'"));
  }
  if (!options.data_file.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--llm needs --data FILE: a CSV or JSONL file whose '", options.data_field,
                     "' column holds the prompts (--data-field NAME for another)"));
  }
  if (!options.model.has_value() || options.model->empty() ||
      options.model->find_first_of("{}\"\\") != std::string::npos) {
    return absl::InvalidArgumentError(
        "--llm needs --model NAME: the model the server serves (no braces, quotes or "
        "backslashes)");
  }
  if (options.body.has_value() || options.stream != "none") {
    return absl::InvalidArgumentError(
        "--llm builds the request's body and reads its answer as server-sent events: no "
        "--body, no --stream");
  }
  int64_t fixed = 0;
  std::string max_tokens;
  if (absl::SimpleAtoi(options.max_tokens, &fixed)) {
    if (fixed < 1 || fixed > 1'000'000) {
      return absl::InvalidArgumentError(
          absl::StrCat("--max-tokens must be from 1 to 1000000 (or a --data column), got ", fixed));
    }
    max_tokens = absl::StrCat(fixed);
  } else {
    max_tokens = absl::StrCat("{", options.max_tokens, "}");  // A column: checked by the body.
  }
  std::string prompt = absl::StrCat("{", options.data_field, ":json}");
  std::string head = absl::StrCat("{\"model\":\"", *options.model, "\",");
  std::string tail = absl::StrCat(",\"max_tokens\":", max_tokens,
                                  ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
  o.body = chat ? absl::StrCat(head, "\"messages\":[{\"role\":\"user\",\"content\":\"", prompt,
                               "\"}]", tail)
                : absl::StrCat(head, "\"prompt\":\"", prompt, "\"", tail);
  o.method = "POST";
  o.headers.push_back("Content-Type: application/json");
  o.stream = "sse";
  o.url = WithApiPath(options.url, chat);
  return o;
}

absl::StatusOr<LlmPlan> MakeLlmPlan(const RunOptions& options) {
  LlmPlan plan;
  plan.chat = *options.llm == "chat";
  for (const std::string& expr : options.goodput) {
    size_t lt = expr.find('<');
    std::string name(absl::StripAsciiWhitespace(expr.substr(0, lt)));
    GoodputBound bound{.expr = expr};
    if (name == "ttft") {
      bound.measure = GoodputBound::Measure::kTtft;
    } else if (name == "tpot") {
      bound.measure = GoodputBound::Measure::kTpot;
    } else if (name == "itl") {
      bound.measure = GoodputBound::Measure::kItl;
    } else if (name == "e2e") {
      bound.measure = GoodputBound::Measure::kE2e;
    }
    absl::Duration d;
    std::string value =
        lt == std::string::npos ? "" : std::string(absl::StripAsciiWhitespace(expr.substr(lt + 1)));
    if (lt == std::string::npos ||
        (name != "ttft" && name != "tpot" && name != "itl" && name != "e2e") ||
        !absl::ParseDuration(value, &d) || d <= absl::ZeroDuration() ||
        value.find_first_not_of("0123456789.") == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--goodput '", expr,
          "': expected MEASURE<DURATION with MEASURE ttft, tpot, itl or e2e, e.g. ttft<200ms"));
    }
    bound.below_ns = absl::ToInt64Nanoseconds(d);
    plan.goodput.push_back(bound);
  }
  return plan;
}

}  // namespace uringload::core
