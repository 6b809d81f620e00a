#include "core/flow/flow_program.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/flow/cookie_jar.h"
#include "core/plan_limits.h"
#include "net/base/absl_view.h"
#include "net/base/seeded_random.h"
#include "net/base/status_macros.h"
#include "proto/url.h"

namespace uringload::core {
namespace {

// Which random value of an iteration picks its flow (SeededRandom's salt).
constexpr uint64_t kFlowSalt = 0x666c6f77;  // "flow"

}  // namespace

uint32_t FlowProgram::FlowOf(uint64_t index, uint64_t seed) const {
  if (flows.size() == 1) return 0;
  uint64_t pick = Below(SeededRandom(seed, index, kFlowSalt), total_weight);
  for (uint32_t f = 0; f < flows.size(); ++f) {
    if (pick < flows[f].weight) return f;
    pick -= flows[f].weight;
  }
  return static_cast<uint32_t>(flows.size() - 1);
}

std::vector<std::string> FlowProgram::ColumnNames(std::span<const std::string> data) const {
  std::vector<std::string> names(data.begin(), data.end());
  names.insert(names.end(), variables.begin(), variables.end());
  names.emplace_back(kCookieColumn);
  return names;
}

std::vector<size_t> FlowProgram::ColumnSizes(std::span<const size_t> data) const {
  std::vector<size_t> sizes(data.begin(), data.end());
  sizes.insert(sizes.end(), variables.size(), max_var_bytes);
  sizes.push_back(CookieLineBound());
  return sizes;
}

absl::StatusOr<FlowProgram> CompileFlows(const FlowFile& file, std::string_view path,
                                         std::span<const std::string> data_columns,
                                         int64_t max_var_bytes, int64_t max_cookie_bytes,
                                         const proto::GrpcSchema* schema) {
  URINGLOAD_RETURN_IF_ERROR(CheckRange("--max-var-bytes", max_var_bytes, 1, kMaxMaxVarBytes));
  URINGLOAD_RETURN_IF_ERROR(
      CheckRange("--max-cookie-bytes", max_cookie_bytes, 0, kMaxMaxCookieBytes));
  FlowProgram program;
  program.max_var_bytes = static_cast<uint32_t>(max_var_bytes);
  program.max_cookie_bytes = static_cast<uint32_t>(max_cookie_bytes);
  program.data_columns = static_cast<uint32_t>(data_columns.size());
  auto fail = [&](int line, absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(AbslView(path), ":", line, ": ", why));
  };
  auto variable = [&](const Extraction& e) -> absl::StatusOr<uint32_t> {
    if (e.variable == kCookieColumn ||
        std::find(data_columns.begin(), data_columns.end(), e.variable) != data_columns.end()) {
      return fail(e.line,
                  absl::StrCat("the variable ", e.variable, " has the name of a ",
                               e.variable == kCookieColumn ? "reserved column" : "--data column"));
    }
    auto it = std::find(program.variables.begin(), program.variables.end(), e.variable);
    if (it != program.variables.end()) return static_cast<uint32_t>(it - program.variables.begin());
    program.variables.push_back(e.variable);
    return static_cast<uint32_t>(program.variables.size() - 1);
  };
  for (const Flow& flow : file.flows) {
    program.flows.push_back({.name = flow.name,
                             .weight = flow.weight,
                             .first_step = static_cast<uint32_t>(program.steps.size()),
                             .steps = static_cast<uint32_t>(flow.steps.size())});
    program.total_weight += flow.weight;
    for (const FlowStep& s : flow.steps) {
      FlowStepProgram step;
      step.flow = flow.name;
      step.name = file.flows.size() == 1 ? s.name : absl::StrCat(flow.name, ".", s.name);
      step.line = s.line;
      // The host cookies are matched against (the run's planner checks the whole URL).
      if (absl::StatusOr<proto::Url> url = proto::ParseUrl(s.url); url.ok()) {
        step.host = url->host;
        step.tls = url->tls;
      }
      step.think = s.think;
      for (const auto& [name, value] : s.headers) {
        if (!absl::EqualsIgnoreCase(name, "cookie")) continue;
        if (value.find('{') != std::string::npos) {
          return fail(s.line,
                      "a step's Cookie header goes into the user's cookie jar: its value is "
                      "literal, without placeholders");
        }
        absl::StrAppend(&step.sent_cookies, step.sent_cookies.empty() ? "" : "; ", value);
      }
      program.max_sent_cookies = std::max(program.max_sent_cookies, step.sent_cookies.size());
      step.statuses = s.expect.statuses;
      step.grpc = s.grpc.has_value();
      step.grpc_statuses = s.expect.grpc_statuses;
      std::string response_type;
      if (step.grpc) {
        if (schema == nullptr) {
          return fail(s.line, "a grpc call needs the service's schema: --proto or --protoset");
        }
        absl::StatusOr<proto::GrpcMethod> method = schema->FindMethod(*s.grpc);
        if (!method.ok()) return fail(s.line, method.status().message());
        response_type = method->response_type;
      }
      // A gRPC answer's json: pointers are paths into its message.
      auto field = [&](const std::string& pointer, std::optional<std::string> expected,
                       int v) -> absl::Status {
        absl::StatusOr<proto::ProtobufFieldPath> path =
            proto::ProtobufFieldPath::Compile(*schema, response_type, pointer);
        if (!path.ok()) return fail(s.line, path.status().message());
        step.fields.push_back(
            {.path = *std::move(path), .expected = std::move(expected), .variable = v});
        program.any_grpc_fields = true;
        return absl::OkStatus();
      };
      if (s.expect.body_contains.has_value()) {
        step.body = std::make_shared<const proto::BodyMatcher>(*s.expect.body_contains);
      }
      std::vector<std::string> pointers;
      for (const auto& [pointer, value] : s.expect.json) {
        if (step.grpc) {
          URINGLOAD_RETURN_IF_ERROR(field(pointer, value, -1));
          continue;
        }
        pointers.push_back(pointer);
        step.json_expected.push_back(value);
      }
      for (const auto& [name, value] : s.expect.headers) {
        step.headers.push_back({.name = absl::AsciiStrToLower(name),
                                .expected = value,
                                .variable = -1,
                                .pattern = {}});
      }
      for (const Extraction& e : s.extract) {
        URINGLOAD_ASSIGN_OR_RETURN(uint32_t v, variable(e));
        switch (e.from) {
          case ExtractFrom::kJson:
            if (step.grpc) {
              URINGLOAD_RETURN_IF_ERROR(field(e.what, std::nullopt, static_cast<int>(v)));
              break;
            }
            pointers.push_back(e.what);
            step.json_variables.push_back(v);
            break;
          case ExtractFrom::kHeader: {
            FlowStepProgram::HeaderUse use{.name = absl::AsciiStrToLower(e.what),
                                           .expected = std::nullopt,
                                           .variable = static_cast<int>(v),
                                           .pattern = {}};
            if (!e.pattern.empty()) {
              absl::StatusOr<TextPattern> pattern = TextPattern::Compile(e.pattern);
              if (!pattern.ok()) return fail(e.line, pattern.status().message());
              use.pattern = *std::move(pattern);
              program.any_header_pattern = true;
            }
            step.headers.push_back(std::move(use));
            break;
          }
          case ExtractFrom::kCookie:
            step.cookies.push_back({.name = e.what, .variable = v});
            break;
          case ExtractFrom::kRegex:
            absl::StatusOr<TextPattern> pattern = TextPattern::Compile(e.what);
            if (!pattern.ok()) return fail(e.line, pattern.status().message());
            step.regexes.push_back({.pattern = *std::move(pattern), .variable = v});
            program.any_regex = true;
            break;
        }
      }
      if (step.headers.size() > 32) return fail(s.line, "at most 32 headers checked or extracted");
      absl::StatusOr<proto::JsonPointerSet> set = proto::JsonPointerSet::Compile(pointers);
      if (!set.ok()) return fail(s.line, set.status().message());
      step.pointers = *std::move(set);
      program.steps.push_back(std::move(step));
    }
  }
  return program;
}

}  // namespace uringload::core
