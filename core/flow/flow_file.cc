#include "core/flow/flow_file.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/flow/text_pattern.h"
#include "core/plan_limits.h"
#include "core/target_name.h"
#include "proto/grpc_status.h"
#include "proto/json_pointer.h"
#include "proto/text_template.h"

namespace uringload::core {
namespace {

// A bad flow file: the message carries FILE:LINE already.
struct Bad {
  std::string message;
};

class Parser {
 public:
  Parser(std::string_view file, std::span<const std::string> columns)
      : file_(file.data(), file.size()), columns_(columns.begin(), columns.end()) {}

  FlowFile Parse(const YAML::Node& root) {
    if (!root.IsMap()) Fail(root, "expected `flow:` (a list of steps) or `flows:`");
    CheckKeys(root, {"flow", "flows"}, "the file");
    FlowFile file;
    if (root["flow"] && root["flows"]) Fail(root, "`flow` and `flows` exclude each other");
    if (const YAML::Node steps = root["flow"]) {
      file.flows.push_back({.name = "flow", .weight = 1, .steps = Steps(steps)});
    } else if (const YAML::Node flows = root["flows"]) {
      if (!flows.IsSequence() || flows.size() == 0) Fail(flows, "`flows` must list flows");
      std::set<std::string> names;
      for (const YAML::Node& f : flows) {
        if (!f.IsMap()) Fail(f, "a flow is a map of name, weight and steps");
        CheckKeys(f, {"name", "weight", "steps"}, "a flow");
        Flow flow;
        flow.name = Scalar(f, "name");
        if (!IsTargetName(flow.name)) {
          Fail(f["name"], "a flow's name is letters, digits, '_', '-' and '.' (it names results)");
        }
        if (!names.insert(flow.name).second) Fail(f["name"], "two flows named " + flow.name);
        if (const YAML::Node w = f["weight"]) {
          int64_t weight = 0;
          if (!absl::SimpleAtoi(Text(w), &weight) || weight < 1 || weight > 1'000'000) {
            Fail(w, "a weight is a whole number from 1 to 1000000");
          }
          flow.weight = static_cast<uint32_t>(weight);
        }
        if (!f["steps"]) Fail(f, "a flow needs `steps`");
        flow.steps = Steps(f["steps"]);
        file.flows.push_back(std::move(flow));
      }
    } else {
      Fail(root, "expected `flow:` (a list of steps) or `flows:`");
    }
    return file;
  }

 private:
  [[noreturn]] void Fail(const YAML::Node& at, absl::string_view why) const {
    throw Bad{absl::StrCat(file_, ":", at.Mark().line + 1, ": ", why)};
  }
  std::string Text(const YAML::Node& node) const {
    if (!node.IsScalar()) Fail(node, "expected a single value");
    return node.as<std::string>();
  }
  std::string Scalar(const YAML::Node& map, const char* key) const {
    const YAML::Node node = map[key];
    if (!node) Fail(map, absl::StrCat("`", key, "` is missing"));
    return Text(node);
  }
  void CheckKeys(const YAML::Node& map, std::initializer_list<const char*> known,
                 absl::string_view what) const {
    for (const auto& member : map) {
      std::string key = Text(member.first);
      bool found = false;
      for (const char* k : known) found = found || key == k;
      if (!found) {
        Fail(member.first, absl::StrCat("unknown key `", key, "` in ", what, " (",
                                        absl::StrJoin(known, ", "), ")"));
      }
    }
  }

  std::vector<FlowStep> Steps(const YAML::Node& list) {
    if (!list.IsSequence() || list.size() == 0) Fail(list, "a flow's steps are a list");
    // Each flow starts with the data columns only: variables are a flow's own.
    extracted_.clear();
    all_extracted_.clear();
    for (const YAML::Node& s : list) {
      if (s.IsMap() && s["extract"] && s["extract"].IsMap()) {
        for (const auto& e : s["extract"]) {
          all_extracted_.insert({Text(e.first), s.Mark().line + 1});
        }
      }
    }
    std::vector<FlowStep> steps;
    std::set<std::string> names;
    for (const YAML::Node& s : list) {
      steps.push_back(Step(s, steps.size()));
      if (!names.insert(steps.back().name).second) {
        Fail(s, "two steps named " + steps.back().name);
      }
    }
    return steps;
  }

  FlowStep Step(const YAML::Node& s, size_t index) {
    if (!s.IsMap())
      Fail(s, "a step is a map (name, request or grpc, headers, body, expect, extract, think)");
    CheckKeys(s, {"name", "request", "grpc", "headers", "body", "expect", "extract", "think"},
              "a step");
    FlowStep step;
    step.line = s.Mark().line + 1;
    step.name = s["name"] ? Text(s["name"]) : absl::StrCat("step", index + 1);
    if (!IsTargetName(step.name)) {
      Fail(s["name"], "a step's name is letters, digits, '_', '-' and '.' (it names results)");
    }
    if (s["request"] && s["grpc"]) Fail(s, "a step has a request or a grpc call, not both");
    const char* kind = s["grpc"] ? "grpc" : "request";
    std::string request = Scalar(s, kind);
    size_t space = request.find(' ');
    if (space == std::string::npos || request.find_first_not_of(' ', space) == std::string::npos) {
      Fail(s[kind], s["grpc"] ? "a grpc call is `package.Service/Method URL`, e.g. "
                                "`shop.Carts/Get http://host:50051`"
                              : "a request is `METHOD URL`, e.g. `GET http://host/path`");
    }
    step.method = request.substr(0, space);
    step.url = std::string(absl::StripLeadingAsciiWhitespace(request.substr(space)));
    if (!absl::StartsWith(step.url, "http://") && !absl::StartsWith(step.url, "https://")) {
      Fail(s[kind], "the URL must start with http:// or https://");
    }
    CheckTemplate(s[kind], step.url, "the URL");
    if (s["grpc"]) {
      step.grpc = step.method;
      step.method = "POST";
    }
    if (const YAML::Node headers = s["headers"]) {
      if (!headers.IsMap()) Fail(headers, "headers are a map of Name: value");
      for (const auto& h : headers) {
        std::string name = Text(h.first);
        std::string value = Text(h.second);
        CheckTemplate(h.second, value, "header " + name);
        step.headers.push_back({name, value});
      }
    }
    if (const YAML::Node body = s["body"]) {
      step.body = Text(body);
      CheckTemplate(body, *step.body, "the body");
    }
    if (const YAML::Node expect = s["expect"]) step.expect = Expect(expect);
    if (!step.grpc.has_value() && step.expect.grpc_statuses != 0) {
      Fail(s["expect"]["grpc_status"], "grpc_status is for grpc calls");
    }
    if (step.grpc.has_value() && step.expect.body_contains.has_value()) {
      Fail(s["expect"]["body_contains"],
           "a grpc call's answer is protobuf, not text: check its fields with json");
    }
    if (const YAML::Node think = s["think"]) step.think = ThinkOf(think);
    // Extractions come last: a step's own request cannot use what its answer gives.
    if (const YAML::Node extract = s["extract"]) {
      if (!extract.IsMap()) Fail(extract, "extract is a map of variable: 'json:/pointer' ...");
      for (const auto& e : extract) {
        step.extract.push_back(ExtractionOf(e.first, e.second));
        if (step.grpc.has_value() && step.extract.back().from == ExtractFrom::kRegex) {
          Fail(e.second, "a grpc call's answer is protobuf, not text: take its fields with json:");
        }
        extracted_.insert(step.extract.back().variable);
      }
    }
    return step;
  }

  FlowExpect Expect(const YAML::Node& e) const {
    if (!e.IsMap()) Fail(e, "expect is a map (status, grpc_status, body_contains, json, header)");
    CheckKeys(e, {"status", "grpc_status", "body_contains", "json", "header"}, "expect");
    FlowExpect expect;
    if (const YAML::Node status = e["status"]) {
      std::string list;
      if (status.IsSequence()) {
        for (const YAML::Node& code : status)
          absl::StrAppend(&list, list.empty() ? "" : ",", Text(code));
      } else {
        list = Text(status);
      }
      absl::StatusOr<StatusSet> set = ParseExpectedStatuses(list);
      if (!set.ok()) Fail(status, absl::StripPrefix(set.status().message(), "--expect-status: "));
      expect.statuses = *set;
    }
    if (const YAML::Node codes = e["grpc_status"]) {
      auto add = [&](const YAML::Node& code) {
        std::string name = Text(code);
        std::optional<int> number = proto::GrpcStatusByName(name);
        if (!number.has_value()) number = proto::ParseGrpcStatus(name);
        if (!number.has_value()) {
          Fail(code, absl::StrCat("'", name, "' is no gRPC status (OK, NOT_FOUND, ... or 0-16)"));
        }
        expect.grpc_statuses |= uint32_t{1} << *number;
      };
      if (codes.IsSequence()) {
        for (const YAML::Node& code : codes) add(code);
      } else {
        add(codes);
      }
    }
    if (const YAML::Node body = e["body_contains"]) {
      expect.body_contains = Text(body);
      if (expect.body_contains->empty()) Fail(body, "body_contains must not be empty");
    }
    if (const YAML::Node json = e["json"]) {
      if (!json.IsMap()) Fail(json, "json is a map of '/pointer': value");
      for (const auto& j : json) {
        std::string pointer = Text(j.first);
        if (!proto::ParseJsonPointer(pointer).ok())
          Fail(j.first, absl::StrCat("bad JSON pointer '", pointer, "'"));
        expect.json.push_back({pointer, Text(j.second)});
      }
    }
    if (const YAML::Node header = e["header"]) {
      if (!header.IsMap()) Fail(header, "header is a map of Name: value");
      for (const auto& h : header) expect.headers.push_back({Text(h.first), Text(h.second)});
    }
    return expect;
  }

  Think ThinkOf(const YAML::Node& node) const {
    std::string text = Text(node);
    auto duration = [&](const std::string& d) {
      absl::StatusOr<absl::Duration> parsed =
          ParseDurationFlag("think", d, absl::ZeroDuration(), absl::Hours(1));
      if (!parsed.ok()) Fail(node, parsed.status().message());
      return *parsed;
    };
    absl::string_view range = text;
    if (absl::ConsumePrefix(&range, "uniform:")) {
      size_t dash = range.find('-');
      if (dash == absl::string_view::npos)
        Fail(node, "think: uniform:LOW-HIGH, e.g. uniform:1s-3s");
      Think t{duration(std::string(range.substr(0, dash))),
              duration(std::string(range.substr(dash + 1)))};
      if (t.high < t.low) Fail(node, "think: uniform's high is below its low");
      return t;
    }
    absl::Duration d = duration(text);
    return {d, d};
  }

  Extraction ExtractionOf(const YAML::Node& key, const YAML::Node& value) const {
    Extraction e;
    e.variable = Text(key);
    e.line = key.Mark().line + 1;
    bool name_ok = !e.variable.empty();
    for (char c : e.variable) name_ok = name_ok && (absl::ascii_isalnum(c) || c == '_');
    if (!name_ok) Fail(key, "a variable's name is letters, digits and _");
    for (std::string_view builtin : proto::TextTemplate::kBuiltins) {
      if (e.variable == builtin) {
        Fail(key, absl::StrCat("{", std::string(builtin), "} is a built-in placeholder"));
      }
    }
    std::string source = Text(value);
    absl::string_view rest = source;
    if (absl::ConsumePrefix(&rest, "json:")) {
      e.from = ExtractFrom::kJson;
      if (!proto::ParseJsonPointer(std::string_view(rest.data(), rest.size())).ok())
        Fail(value, absl::StrCat("bad JSON pointer '", rest, "'"));
    } else if (absl::ConsumePrefix(&rest, "header:")) {
      e.from = ExtractFrom::kHeader;
      // header:Name:REGEX takes the regex's group of the value (a name holds no ':').
      if (size_t colon = rest.find(':'); colon != absl::string_view::npos) {
        e.pattern = std::string(rest.substr(colon + 1));
        rest = rest.substr(0, colon);
        absl::StatusOr<TextPattern> pattern = TextPattern::Compile(e.pattern);
        if (!pattern.ok()) {
          Fail(value, absl::StrCat("bad regex '", e.pattern, "': ", pattern.status().message()));
        }
      }
    } else if (absl::ConsumePrefix(&rest, "cookie:")) {
      e.from = ExtractFrom::kCookie;
    } else if (absl::ConsumePrefix(&rest, "regex:")) {
      e.from = ExtractFrom::kRegex;
      absl::StatusOr<TextPattern> pattern =
          TextPattern::Compile(std::string_view(rest.data(), rest.size()));
      if (!pattern.ok()) {
        Fail(value, absl::StrCat("bad regex '", rest, "': ", pattern.status().message()));
      }
    } else {
      Fail(value,
           "an extraction is json:/pointer, header:Name, header:Name:regex, cookie:name or "
           "regex:…");
    }
    if (rest.empty() && e.from != ExtractFrom::kJson) Fail(value, "nothing named to extract");
    e.what = std::string(rest);
    return e;
  }

  // `text` compiles with the built-ins, the data columns and what earlier steps extracted.
  void CheckTemplate(const YAML::Node& at, const std::string& text, absl::string_view what) const {
    std::vector<std::string> names = columns_;
    names.insert(names.end(), extracted_.begin(), extracted_.end());
    std::vector<size_t> sizes(names.size(), 1);
    absl::StatusOr<proto::TextTemplate> compiled =
        proto::TextTemplate::Compile(text, {.names = names, .max_sizes = sizes});
    if (compiled.ok()) return;
    // A variable a later step extracts: say so, not only that it is unknown.
    for (const auto& [variable, line] : all_extracted_) {
      if (!extracted_.contains(variable) &&
          absl::StrContains(text, absl::StrCat("{", variable, "}"))) {
        Fail(at, absl::StrCat(what, ": {", variable, "} is used before a step extracts it (line ",
                              line, ")"));
      }
    }
    Fail(at, absl::StrCat(what, ": ", compiled.status().message()));
  }

  std::string file_;
  std::vector<std::string> columns_;
  std::set<std::string> extracted_;                      // By the steps so far.
  std::set<std::pair<std::string, int>> all_extracted_;  // By any step of the flow, with its line.
};

}  // namespace

absl::StatusOr<FlowFile> ParseFlowFile(std::string_view text, std::string_view file,
                                       std::span<const std::string> columns) {
  try {
    YAML::Node root = YAML::Load(std::string(text));
    return Parser(file, columns).Parse(root);
  } catch (const Bad& bad) {
    return absl::InvalidArgumentError(bad.message);
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(file), ":", error.mark.line + 1, ": not YAML: ", error.msg));
  }
}

}  // namespace uringload::core
