// FlowProgram: a flow file compiled for the workers, once per run. Every step of every flow
// is one of the plan's targets (its request template and its per-step results); the program
// keeps what each step checks and takes from its answer: the statuses, the body text, the
// JSON pointers (one JsonPointerSet per step, scanned as the body streams by), the headers,
// cookies and regexes. Variables are slots of --max-var-bytes each, rendered into templates
// as the columns that follow --data's, then the Cookie line (kCookieColumn).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/expected_statuses.h"
#include "core/flow/cookie_jar.h"
#include "core/flow/flow_file.h"
#include "core/flow/text_pattern.h"
#include "proto/body_matcher.h"
#include "proto/grpc_schema.h"
#include "proto/json_pointer_scanner.h"
#include "proto/protobuf_field_path.h"

namespace uringload::core {

inline constexpr int64_t kDefaultMaxVarBytes = 256;
inline constexpr int64_t kMaxMaxVarBytes = 65536;
// The template column the jar's Cookie line renders from (a name no variable may take).
inline constexpr std::string_view kCookieColumn = "_cookie";
// A regex extraction searches at most this much of the body's start.
inline constexpr size_t kRegexBodyBytes = 4096;

struct FlowStepProgram {
  std::string flow;  // The flow's name.
  std::string name;  // The step's: what its results are labelled with.
  int line = 0;
  std::string host;  // Its URL's: what cookies are matched against.
  bool tls = false;
  std::optional<Think> think;
  // A Cookie header of the step: sent whole, as written, in one Cookie line with the jar's
  // other cookies (RFC 6265 5.4 allows one); its cookies also enter the user's jar where they
  // fit, for the steps after it (the jar's bounds limit what it keeps, never what was written).
  std::string sent_cookies;
  std::optional<StatusSet> statuses;
  std::shared_ptr<const proto::BodyMatcher> body;
  // JSON: the expected values' pointers first, then the extractions'.
  proto::JsonPointerSet pointers;
  std::vector<std::string> json_expected;  // By pointer, for the first json_expected.size().
  std::vector<uint32_t> json_variables;    // By pointer after those.
  struct HeaderUse {
    std::string name;  // In lower case.
    std::optional<std::string> expected;
    int variable = -1;  // Extracted into this slot (-1: only checked).
    // header:Name:REGEX: its group of the value is what is extracted.
    std::optional<TextPattern> pattern;
  };
  std::vector<HeaderUse> headers;
  struct CookieUse {
    std::string name;
    uint32_t variable = 0;
  };
  std::vector<CookieUse> cookies;
  struct RegexUse {
    TextPattern pattern;
    uint32_t variable = 0;
  };
  std::vector<RegexUse> regexes;
  // A gRPC call: the grpc-status it expects (bit k: status k; 0: not checked) and the fields
  // of its answer's first message it checks or takes (its json: pointers), read from the
  // answer's first kRegexBodyBytes.
  bool grpc = false;
  uint32_t grpc_statuses = 0;
  struct FieldUse {
    proto::ProtobufFieldPath path;
    std::optional<std::string> expected;
    int variable = -1;  // Extracted into this slot (-1: only checked).
  };
  std::vector<FieldUse> fields;
};

struct FlowProgram {
  struct FlowEntry {
    std::string name;
    uint32_t weight = 1;
    uint32_t first_step = 0;  // Its steps are first_step .. first_step + steps - 1.
    uint32_t steps = 0;
  };
  std::vector<FlowEntry> flows;
  uint64_t total_weight = 0;
  std::vector<FlowStepProgram> steps;  // Of every flow, in order: step k is target k.
  std::vector<std::string> variables;  // Of every flow (a name used by two flows is one slot).
  uint32_t max_var_bytes = kDefaultMaxVarBytes;
  uint32_t max_cookie_bytes = kDefaultMaxCookieBytes;  // Each user's jar.
  size_t max_sent_cookies = 0;      // The longest Cookie header a step writes (its sent_cookies).
  uint32_t data_columns = 0;        // The template columns before the variables.
  bool any_regex = false;           // A regex: extraction over the body (its first 4 KiB kept).
  bool any_header_pattern = false;  // A header:Name:REGEX extraction.
  bool any_grpc_fields = false;

  // The flow iteration `index` follows: fixed per index and seed, in proportion to weights.
  uint32_t FlowOf(uint64_t index, uint64_t seed) const;
  // The template columns: the data file's, the variables, the Cookie line.
  std::vector<std::string> ColumnNames(std::span<const std::string> data_columns) const;
  std::vector<size_t> ColumnSizes(std::span<const size_t> data_sizes) const;
  // The longest Cookie line a user renders: its jar's and a step's own Cookie header.
  size_t CookieLineBound() const {
    return CookieJar::LineBound(max_cookie_bytes) + max_sent_cookies + 2;
  }
};

// Compiles `file`'s flows; `data_columns` are --data's (a variable may not take one's name);
// `schema`: the gRPC service's, which a grpc step needs (its answer's fields are paths into the
// method's response type).
absl::StatusOr<FlowProgram> CompileFlows(const FlowFile& file, std::string_view path,
                                         std::span<const std::string> data_columns,
                                         int64_t max_var_bytes, int64_t max_cookie_bytes,
                                         const proto::GrpcSchema* schema = nullptr);

}  // namespace uringload::core
