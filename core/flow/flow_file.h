// FlowFile: a user flow declared in YAML (docs/flows.md): steps that each send one request,
// check its answer (expect) and take values from it (extract) for the requests after it,
// optionally pausing (think); or several flows, each with a weight. Parsed and checked before
// any traffic: an unknown key, a bad pointer or regex, a placeholder no earlier step or data
// column provides, each is one error naming FILE:LINE.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/expected_statuses.h"

namespace uringload::core {

// Where an extraction takes its value from the response.
enum class ExtractFrom : uint8_t { kJson, kHeader, kCookie, kRegex };

struct Extraction {
  std::string variable;
  ExtractFrom from = ExtractFrom::kJson;
  std::string what;  // A JSON pointer, a header or cookie name, or a regex with one group.
  // header: a regex with one group the value is searched with; its group is what is taken
  // (empty: the whole value).
  std::string pattern;
  int line = 0;
};

struct FlowExpect {
  std::optional<StatusSet> statuses;
  std::optional<std::string> body_contains;
  std::vector<std::pair<std::string, std::string>> json;     // Pointer, the value's text.
  std::vector<std::pair<std::string, std::string>> headers;  // Name, value.
  uint32_t grpc_statuses = 0;  // Bit k: grpc-status k is expected (none: not checked).
};

struct Think {
  absl::Duration low;
  absl::Duration high;  // == low: fixed; above: uniform in [low, high].
};

struct FlowStep {
  std::string name;
  std::optional<std::string> grpc;  // A gRPC call's method (package.Service/Method).
  std::string method;               // POST for a gRPC call.
  std::string url;                  // A template.
  std::vector<std::pair<std::string, std::string>> headers;  // Name, value (a template).
  std::optional<std::string> body;  // A template (a gRPC call's: its request message's JSON).
  FlowExpect expect;
  std::vector<Extraction> extract;
  std::optional<Think> think;
  int line = 0;  // Of the step in its file, 1-based.
};

struct Flow {
  std::string name;
  uint32_t weight = 1;
  std::vector<FlowStep> steps;
};

struct FlowFile {
  std::vector<Flow> flows;
};

// Parses `text` (the contents of `file`, for messages) and checks every template against
// the placeholders it may use: the built-in ones, `columns` (of --data), and the variables the
// steps before it extract.
absl::StatusOr<FlowFile> ParseFlowFile(std::string_view text, std::string_view file,
                                       std::span<const std::string> columns = {});

}  // namespace uringload::core
