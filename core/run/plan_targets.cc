#include "core/run/plan_targets.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/file_contents.h"
#include "core/flow/flow_file.h"
#include "core/flow/flow_program.h"
#include "core/plan_limits.h"
#include "core/run/plan_grpc.h"
#include "core/run/replay_file.h"
#include "core/run/target_file.h"
#include "net/base/absl_view.h"
#include "net/base/status_macros.h"

namespace uringload::core {
namespace {

// The command line's URL as one line, or every line of --targets.
absl::StatusOr<std::vector<TargetLine>> ReadTargetLines(const RunOptions& options) {
  if (!options.targets_file.has_value()) {
    if (options.url.empty()) return absl::InvalidArgumentError("a URL or --targets is required");
    return std::vector<TargetLine>{
        {.line = 0, .method = options.method, .url = options.url, .body = {}}};
  }
  if (!options.url.empty()) return absl::InvalidArgumentError("give a URL or --targets, not both");
  URINGLOAD_ASSIGN_OR_RETURN(std::vector<TargetLine> read, ReadTargetFile(*options.targets_file));
  if (static_cast<int64_t>(read.size()) > kMaxTargetLines) {
    return absl::InvalidArgumentError(
        absl::StrCat("--targets: at most ", kMaxTargetLines, " requests, got ", read.size()));
  }
  return read;
}

// --data and the order its rows are taken in.
absl::Status PlanData(const RunOptions& options, RunPlan& plan) {
  if (options.data_file.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(DataFile data, DataFile::Open(*options.data_file));
    plan.data = std::make_shared<const DataFile>(std::move(data));
  }
  if (options.data_order != "sequential" && options.data_order != "random") {
    return absl::InvalidArgumentError(
        absl::StrCat("--data-order must be sequential or random, got '", options.data_order, "'"));
  }
  if (options.data_order == "random" && plan.data == nullptr) {
    return absl::InvalidArgumentError("--data-order needs --data");
  }
  plan.random_rows = options.data_order == "random";
  return absl::OkStatus();
}

// One line's request. All lines share the first one's scheme, host and port (range):
// connections are pooled per address, and any connection may send any target.
// `file` names where lines come from in errors ("--targets FILE").
absl::Status PlanTargetRequest(const RunOptions& options, const TargetLine& line,
                               const std::optional<CommonBody>& common_body, std::string_view file,
                               RunPlan& plan) {
  auto fail = [&](absl::string_view why) {
    if (line.line == 0) return absl::InvalidArgumentError(why);
    return absl::InvalidArgumentError(absl::StrCat(AbslView(file), ":", line.line, ": ", why));
  };
  absl::StatusOr<proto::Url> url = SharedConnectionUrl(line.url, plan);
  if (!url.ok()) return fail(url.status().message());
  TargetRequest target = NewTarget(options, line.line, line.name, line.method, line.url, *url);
  proto::RequestSpec& spec = target.spec;
  if (line.body.has_value()) {
    spec.body = *line.body;
    spec.body_name = absl::StrCat("body @", line.body_path);
    spec.body_is_template = options.body_file_placeholders;
  } else if (common_body.has_value()) {
    spec.body = common_body->text;
    spec.body_name = common_body->name;
    spec.body_is_template = common_body->is_template;
  }
  if (absl::Status s = proto::RequestTemplate::Build(spec, plan.columns()).status(); !s.ok()) {
    return fail(s.message());
  }
  plan.targets.push_back(std::move(target));
  return absl::OkStatus();
}

// --targets-order, and the names per-target results are kept under: a line's name=, else its
// METHOD URL; past --max-target-labels names, the rest count as "other".
absl::Status PlanTargetNames(const RunOptions& options, RunPlan& plan) {
  if (options.targets_order != "round-robin" && options.targets_order != "random" &&
      options.targets_order != "sequential") {
    return absl::InvalidArgumentError(
        absl::StrCat("--targets-order must be round-robin, random or sequential, got '",
                     options.targets_order, "'"));
  }
  plan.random_order = options.targets_order == "random";
  plan.sequential_order = options.targets_order == "sequential";
  if (absl::Status s =
          CheckRange("--max-target-labels", options.max_target_labels, 1, kMaxTargetLabels);
      !s.ok()) {
    return s;
  }
  if (!options.targets_file.has_value()) return absl::OkStatus();
  std::map<std::string, uint32_t, std::less<>> known;
  size_t named = 0;  // Names with a target of their own.
  for (const TargetRequest& target : plan.targets) {
    std::string name =
        target.name.empty() ? absl::StrCat(target.method, " ", target.url) : target.name;
    auto it = known.find(name);
    if (it == known.end() && named == static_cast<size_t>(options.max_target_labels)) {
      // Past the bound, every new name counts as "other" (a line may carry that name too).
      it = known.find(kOtherTarget);
      if (it == known.end()) {
        it = known.emplace(kOtherTarget, plan.target_names.size()).first;
        plan.target_names.emplace_back(kOtherTarget);
      }
    } else if (it == known.end()) {
      it = known.emplace(name, plan.target_names.size()).first;
      plan.target_names.push_back(name);
      ++named;
    }
    plan.target_of.push_back(it->second);
  }
  return absl::OkStatus();
}

// The index of `url`'s origin among the flow's, added when new (the first is plan.url).
uint16_t FlowOrigin(const proto::Url& url, RunPlan& plan) {
  if (plan.origins.empty()) plan.url = url;
  for (size_t i = 0; i < plan.origins.size(); ++i) {
    const proto::Url& o = plan.origins[i].url;
    if (o.host == url.host && o.port == url.port && o.last_port == url.last_port &&
        o.tls == url.tls) {
      return static_cast<uint16_t>(i);
    }
  }
  plan.origins.push_back({.url = url, .address = {}});
  return static_cast<uint16_t>(plan.origins.size() - 1);
}

// A flow over several origins: each user holds a connection per origin (up to
// --max-origins-per-user), each connection one port of one host.
absl::Status PlanFlowOrigins(const RunOptions& options, std::string_view path, RunPlan& plan) {
  URINGLOAD_RETURN_IF_ERROR(
      CheckRange("--max-origins-per-user", options.max_origins_per_user, 1, kMaxMaxOriginsPerUser));
  if (plan.origins.size() > kMaxMaxOriginsPerUser * 16) {
    return absl::InvalidArgumentError(absl::StrCat(AbslView(path), ": at most ",
                                                   kMaxMaxOriginsPerUser * 16, " origins, got ",
                                                   plan.origins.size()));
  }
  if (plan.origins.size() == 1) return absl::OkStatus();
  for (const Origin& o : plan.origins) {
    if (o.url.last_port != o.url.port) {
      return absl::InvalidArgumentError(absl::StrCat(
          AbslView(path), ": a flow over several origins takes one port per origin, not a range (",
          o.url.host, ":", o.url.port, "-", o.url.last_port, ")"));
    }
  }
  if (options.unix_socket.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(path), ": --unix goes to one server, and the flow's steps go to ",
                     plan.origins.size(), " origins"));
  }
  plan.lanes = static_cast<uint32_t>(
      std::min<int64_t>(static_cast<int64_t>(plan.origins.size()), options.max_origins_per_user));
  if (options.preconnect && plan.lanes < plan.origins.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--preconnect opens each user's connections before the start, and the flow's ",
        plan.origins.size(), " origins are more than --max-origins-per-user ", plan.lanes,
        ": raise it to ", plan.origins.size(), ", or leave --preconnect out"));
  }
  return absl::OkStatus();
}

// --flow: every step of every flow is a target, named by the step (flow.step with several
// flows), sending its own headers and body and the user's Cookie line.
absl::Status PlanFlow(const RunOptions& options, RunPlan& plan) {
  const std::string& path = *options.flow_file;
  if (!options.url.empty() || options.targets_file.has_value()) {
    return absl::InvalidArgumentError("--flow takes no URL or --targets: its steps name them");
  }
  if (options.body.has_value() || options.body_file.has_value()) {
    return absl::InvalidArgumentError("--flow: each step has its own body");
  }
  if (options.expect_status.has_value() || options.expect_body_contains.has_value()) {
    return absl::InvalidArgumentError("--flow: each step has its own expect");
  }
  URINGLOAD_ASSIGN_OR_RETURN(std::string text, ReadRegularFile("--flow", path));
  std::vector<std::string> data_columns;
  std::vector<size_t> data_sizes;
  if (plan.data != nullptr) {
    data_columns = plan.data->columns();
    data_sizes = plan.data->max_sizes();
  }
  URINGLOAD_ASSIGN_OR_RETURN(FlowFile file, ParseFlowFile(text, path, data_columns));
  if (!options.import_paths.empty() && !options.proto_file) {
    return absl::InvalidArgumentError("--import-path goes with --proto");
  }
  if (options.proto_file && options.protoset_file) {
    return absl::InvalidArgumentError("--proto or --protoset, not both");
  }
  URINGLOAD_ASSIGN_OR_RETURN(std::optional<proto::GrpcSchema> schema, LoadGrpcSchema(options));
  URINGLOAD_ASSIGN_OR_RETURN(
      FlowProgram program,
      CompileFlows(file, path, data_columns, options.max_var_bytes, options.max_cookie_bytes,
                   schema.has_value() ? &*schema : nullptr));
  plan.flow_columns = program.ColumnNames(data_columns);
  plan.flow_column_sizes = program.ColumnSizes(data_sizes);
  uint32_t k = 0;
  for (const Flow& flow : file.flows) {
    for (const FlowStep& step : flow.steps) {
      auto fail = [&](absl::string_view why) {
        return absl::InvalidArgumentError(absl::StrCat(path, ":", step.line, ": ", why));
      };
      absl::StatusOr<proto::Url> url = proto::ParseUrl(step.url);
      if (!url.ok()) return fail(url.status().message());
      uint16_t origin = FlowOrigin(*url, plan);
      std::optional<proto::GrpcMethod> method;
      if (step.grpc.has_value()) {  // CompileFlows found it.
        method = *(schema)->FindMethod(*step.grpc);
        if (url->target != "/") {
          return fail(absl::StrCat("the method gives the path (", method->path,
                                   "): a grpc call's URL is only http[s]://host:port"));
        }
        url->target = method->path;
      }
      TargetRequest target =
          NewTarget(options, step.line, program.steps[k].name, step.method, step.url, *url);
      target.origin = origin;
      proto::RequestSpec& spec = target.spec;
      for (const auto& [name, value] : step.headers) {
        if (absl::EqualsIgnoreCase(name, "cookie")) continue;  // Into the jar (FlowStepProgram).
        spec.headers.push_back(absl::StrCat(name, ": ", value));
      }
      spec.extra_lines = "{" + std::string(kCookieColumn) + "}";
      proto::TemplateColumns columns{plan.flow_columns, plan.flow_column_sizes};
      absl::Status built;
      if (method.has_value()) {
        built =
            MakeGrpcCall(*schema, *method, plan.timeout,
                         {.text = step.body.value_or("{}"), .name = "the body"}, columns, 1, spec);
        plan.grpc = true;
      } else {
        spec.body = step.body.value_or("");
        spec.body_name = "the body";
        built = proto::RequestTemplate::Build(spec, columns).status();
      }
      if (!built.ok()) return fail(built.message());
      plan.target_names.push_back(target.name);
      plan.target_of.push_back(k++);
      plan.targets.push_back(std::move(target));
    }
  }
  if (schema.has_value() && !plan.grpc) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no step is a grpc call, so --proto and --protoset have no use"));
  }
  URINGLOAD_RETURN_IF_ERROR(PlanFlowOrigins(options, path, plan));
  plan.flow = std::make_shared<const FlowProgram>(std::move(program));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<CommonBody>> ReadCommonBody(const RunOptions& options) {
  if (options.body.has_value()) return CommonBody{*options.body, "--body", true};
  if (!options.body_file.has_value()) return std::nullopt;
  URINGLOAD_ASSIGN_OR_RETURN(std::string bytes, ReadRegularFile("--body-file", *options.body_file));
  return CommonBody{std::move(bytes), absl::StrCat("--body-file ", *options.body_file),
                    options.body_file_placeholders};
}

absl::StatusOr<proto::Url> SharedConnectionUrl(const std::string& text, RunPlan& plan) {
  URINGLOAD_ASSIGN_OR_RETURN(proto::Url url, proto::ParseUrl(text));
  if (!plan.targets.empty() && (url.host != plan.url.host || url.port != plan.url.port ||
                                url.last_port != plan.url.last_port || url.tls != plan.url.tls)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "every target must have the first one's scheme, host and port (",
        plan.url.tls ? "https://" : "http://", plan.url.HostHeader(), "): connections are shared"));
  }
  if (plan.targets.empty()) plan.url = url;
  return url;
}

TargetRequest NewTarget(const RunOptions& options, int line, std::string name, std::string method,
                        std::string url_text, const proto::Url& url) {
  TargetRequest target{.line = line,
                       .name = std::move(name),
                       .method = method,
                       .url = std::move(url_text),
                       .parsed = url,
                       .spec = {}};
  proto::RequestSpec& spec = target.spec;
  spec.method = std::move(method);
  spec.target = url.target;
  spec.host_header = url.HostHeader();
  spec.scheme = url.tls ? "https" : "http";
  spec.headers = options.headers;
  spec.keep_alive = !options.no_keepalive;
  return target;
}

// --replay: each line of the log is a target sent once, in order, at its recorded offset
// (over --replay-speed); the URL gives the scheme, host and port.
absl::Status PlanReplay(const RunOptions& options, RunPlan& plan) {
  const std::string& path = *options.replay_file;
  if (options.targets_file.has_value() || options.flow_file.has_value()) {
    return absl::InvalidArgumentError("--replay excludes --targets and --flow");
  }
  if (options.url.empty()) {
    return absl::InvalidArgumentError(
        "--replay needs a URL: its scheme, host and port take the log's paths");
  }
  if (options.rate.has_value() || options.ramp.has_value()) {
    return absl::InvalidArgumentError("--replay keeps the log's times: no -R or --ramp");
  }
  URINGLOAD_ASSIGN_OR_RETURN(double speed, ParseReplaySpeed(options.replay_speed));
  URINGLOAD_ASSIGN_OR_RETURN(std::string text, ReadRegularFile("--replay", path));
  URINGLOAD_ASSIGN_OR_RETURN(std::vector<ReplayLine> lines, ParseReplayFile(text, path));
  URINGLOAD_ASSIGN_OR_RETURN(proto::Url base, proto::ParseUrl(options.url));
  std::string origin = absl::StrCat(base.tls ? "https://" : "http://", base.HostHeader());
  URINGLOAD_ASSIGN_OR_RETURN(std::optional<CommonBody> common_body, ReadCommonBody(options));
  auto offsets = std::make_shared<std::vector<int64_t>>();
  for (const ReplayLine& line : lines) {
    TargetLine target{.line = line.line,
                      .method = line.method,
                      .url = origin + proto::TextTemplate::Escape(line.target),
                      .body = {}};
    URINGLOAD_RETURN_IF_ERROR(
        PlanTargetRequest(options, target, common_body, "--replay " + path, plan));
    offsets->push_back(static_cast<int64_t>(std::llround(line.offset_ns / speed)));
  }
  plan.sequential_order = true;
  double span = offsets->back() / 1e9;
  plan.rate = span > 0 ? offsets->size() / span : static_cast<double>(offsets->size());
  plan.replay_offsets = std::move(offsets);
  return absl::OkStatus();
}

absl::Status PlanTargets(const RunOptions& options, RunPlan& plan) {
  if (options.stream_messages.has_value() && !options.grpc_method.has_value()) {
    return absl::InvalidArgumentError("--stream-messages goes with --grpc");
  }
  bool schema = options.proto_file || options.protoset_file || !options.import_paths.empty();
  if (options.grpc_method || (schema && !options.flow_file)) {
    URINGLOAD_RETURN_IF_ERROR(PlanData(options, plan));
    URINGLOAD_RETURN_IF_ERROR(PlanGrpc(options, plan));
    plan.seed = static_cast<uint64_t>(options.seed);
    plan.keep_alive = !options.no_keepalive;
    return absl::OkStatus();
  }
  if (options.replay_file.has_value()) {
    URINGLOAD_RETURN_IF_ERROR(PlanData(options, plan));
    URINGLOAD_RETURN_IF_ERROR(PlanReplay(options, plan));
    plan.seed = static_cast<uint64_t>(options.seed);
    plan.keep_alive = !options.no_keepalive;
    return absl::OkStatus();
  }
  if (options.flow_file.has_value()) {
    URINGLOAD_RETURN_IF_ERROR(PlanData(options, plan));
    URINGLOAD_RETURN_IF_ERROR(PlanFlow(options, plan));
    plan.seed = static_cast<uint64_t>(options.seed);
    plan.keep_alive = !options.no_keepalive;
    return absl::OkStatus();
  }
  URINGLOAD_ASSIGN_OR_RETURN(std::vector<TargetLine> lines, ReadTargetLines(options));
  // The data file first: the requests' placeholders may name its columns.
  URINGLOAD_RETURN_IF_ERROR(PlanData(options, plan));
  URINGLOAD_ASSIGN_OR_RETURN(std::optional<CommonBody> common_body, ReadCommonBody(options));
  std::string file = options.targets_file ? "--targets " + *options.targets_file : "";
  for (const TargetLine& line : lines) {
    URINGLOAD_RETURN_IF_ERROR(PlanTargetRequest(options, line, common_body, file, plan));
  }
  URINGLOAD_RETURN_IF_ERROR(PlanTargetNames(options, plan));
  plan.seed = static_cast<uint64_t>(options.seed);
  plan.keep_alive = !options.no_keepalive;
  return absl::OkStatus();
}

}  // namespace uringload::core
