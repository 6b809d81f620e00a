#include "core/run/thresholds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/run/run_histograms.h"
#include "core/target_name.h"
#include "net/base/absl_view.h"
#include "net/base/status_macros.h"
#include "proto/grpc_status.h"

namespace uringload::core {
namespace {

constexpr std::array<std::pair<const char*, double>, 6> kQuantiles = {
    {{"p50", 0.5}, {"p75", 0.75}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}, {"p999", 0.999}}};

enum class Kind { kLatency, kRate, kCount, kUnknown };

// grpc_status{code=NAME}: the ok gRPC calls with that status.
constexpr std::string_view kGrpcStatusMeasure = "grpc_status{code=";

// The code a grpc_status{code=NAME} measure names, or nullopt.
std::optional<int> GrpcCodeOf(const std::string& measure) {
  if (!measure.starts_with(kGrpcStatusMeasure) || !measure.ends_with('}')) return std::nullopt;
  return proto::GrpcStatusByName(std::string_view(measure).substr(
      kGrpcStatusMeasure.size(), measure.size() - kGrpcStatusMeasure.size() - 1));
}

// A histogram row's statistic ("ttfb.p99", "connect.max"): its histogram in `s` (none given:
// null) and the statistic's name, or none.
struct RowStatistic {
  const HistogramSnapshot* histogram = nullptr;
  std::string_view statistic;
};
std::optional<RowStatistic> RowStatisticOf(std::string_view measure, const RunStats* s = nullptr) {
  size_t dot = measure.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view statistic = measure.substr(dot + 1);
  bool known = statistic == "min" || statistic == "mean" || statistic == "max";
  for (const auto& [name, q] : kQuantiles) known = known || statistic == name;
  if (!known) return std::nullopt;
  for (const HistogramRow& row : kRunHistograms) {
    if (row.measure == measure.substr(0, dot)) {
      return RowStatistic{s != nullptr ? &(s->*row.member) : nullptr, statistic};
    }
  }
  return std::nullopt;
}

// A statistic (p50 … p999, min, mean, max) of `h`, in seconds; none when it is empty.
std::optional<double> StatisticOf(const HistogramSnapshot& h, std::string_view statistic) {
  if (h.count == 0) return std::nullopt;
  for (const auto& [name, q] : kQuantiles) {
    if (statistic == name) return h.Quantile(q) / 1e9;
  }
  if (statistic == "min") return h.min / 1e9;
  return statistic == "max" ? h.max / 1e9 : h.Mean() / 1e9;
}

// " head ttfb connect …": the histogram rows' names.
std::string HistogramMeasureNames() {
  std::string names;
  for (const HistogramRow& row : kRunHistograms) {
    absl::StrAppend(&names, " ", AbslView(row.measure));
  }
  return names;
}

MeasureKind ToMeasureKind(Kind kind) {
  if (kind == Kind::kLatency) return MeasureKind::kLatency;
  return kind == Kind::kRate ? MeasureKind::kFraction : MeasureKind::kNumber;
}

Kind KindOf(const std::string& measure) {
  for (const auto& [name, q] : kQuantiles) {
    if (measure == name) return Kind::kLatency;
  }
  if (measure == "min" || measure == "mean" || measure == "max") return Kind::kLatency;
  if (RowStatisticOf(measure)) return Kind::kLatency;
  if (measure == "error_rate" || measure == "success_rate" || measure == "grpc_error_rate" ||
      measure == "goodput") {
    return Kind::kRate;
  }
  if (measure.starts_with(kGrpcStatusMeasure)) return Kind::kCount;
  if (measure == "rps" || measure == "errors" || measure == "late_starts") return Kind::kCount;
  for (const char* name : kOutcomeNames) {
    if (measure == name) return Kind::kCount;
  }
  return Kind::kUnknown;
}

}  // namespace

const HistogramRow* HistogramMeasure(std::string_view measure, std::string_view* statistic) {
  std::optional<RowStatistic> row = RowStatisticOf(measure);
  if (!row) return nullptr;
  *statistic = row->statistic;
  std::string_view name = measure.substr(0, measure.find('.'));
  for (const HistogramRow& r : kRunHistograms) {
    if (r.measure == name) return &r;
  }
  return nullptr;
}

absl::StatusOr<Threshold> ParseThreshold(const std::string& text, const std::string& flag) {
  auto fail = [&text, &flag](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " '", text, "': ", why));
  };
  size_t at = text.find_first_of("<>");
  if (at == std::string::npos)
    return fail("expected MEASURE>VALUE or MEASURE<VALUE, e.g. p99>250ms");
  Threshold t;
  t.expr = text;
  t.measure = std::string(absl::StripAsciiWhitespace(text.substr(0, at)));
  if (t.measure.starts_with(kGrpcStatusMeasure)) {
    if (!GrpcCodeOf(t.measure)) {
      std::vector<std::string> names;  // Debian's absl joins no std::string_view.
      for (int code = 0; code < proto::kGrpcStatusCount; ++code) {
        names.emplace_back(proto::GrpcStatusName(code));
      }
      return fail(absl::StrCat("a gRPC status is named as grpc_status{code=NAME}, NAME one of ",
                               absl::StrJoin(names, " ")));
    }
  } else if (size_t open = t.measure.find('{'); open != std::string::npos) {
    // {step=NAME} says the same of a flow's step (each step is a target).
    std::string_view key = t.measure.compare(open, 6, "{step=") == 0 ? "{step=" : "{target=";
    if (t.measure.compare(open, key.size(), key) != 0 || t.measure.back() != '}' ||
        !IsTargetName(
            t.measure.substr(open + key.size(), t.measure.size() - open - key.size() - 1))) {
      return fail(
          "a target is named as MEASURE{target=NAME}, e.g. p99{target=login}<200ms, and a flow's "
          "step as MEASURE{step=NAME}");
    }
    t.target = t.measure.substr(open + key.size(), t.measure.size() - open - key.size() - 1);
    t.measure.resize(open);
    if (t.measure == "late_starts" || RowStatisticOf(t.measure)) {
      return fail(absl::StrCat(t.measure, " is measured for the run, not per target"));
    }
  }
  bool greater = text[at] == '>';
  bool equal = at + 1 < text.size() && text[at + 1] == '=';
  t.op = greater ? (equal ? Threshold::Op::kGreaterEqual : Threshold::Op::kGreater)
                 : (equal ? Threshold::Op::kLessEqual : Threshold::Op::kLess);
  std::string value(absl::StripAsciiWhitespace(text.substr(at + (equal ? 2 : 1))));
  Kind kind = KindOf(t.measure);
  if (kind == Kind::kUnknown) {
    return fail(absl::StrCat(
        "unknown measure '", t.measure,
        "' (p50 p75 p90 p95 p99 p999 min mean max error_rate success_rate "
        "rps errors late_starts ok timeout connect_error reset parse_error check_failed "
        "grpc_status{code=NAME} grpc_error_rate; and NAME.p99 or another of those statistics "
        "for NAME one of",
        HistogramMeasureNames(), ")"));
  }
  if (value.empty()) return fail("no value");
  t.kind = ToMeasureKind(kind);
  if (kind == Kind::kLatency) {
    absl::Duration d;
    if (!absl::ParseDuration(value, &d) || d < absl::ZeroDuration() ||
        value.find_first_not_of("0123456789.") == std::string::npos) {
      return fail(absl::StrCat("a latency bound is a duration with a unit (250ms, 1.5s), got '",
                               value, "'"));
    }
    t.bound = absl::ToDoubleSeconds(d);
    return t;
  }
  bool percent = kind == Kind::kRate && value.back() == '%';
  if (percent) value.pop_back();
  if (!absl::SimpleAtod(value, &t.bound) || !std::isfinite(t.bound) || t.bound < 0) {
    return fail(absl::StrCat("expected a number, got '", value, "'"));
  }
  if (percent) t.bound /= 100;
  if (kind == Kind::kRate && t.bound > 1) {
    return fail("a rate is a fraction (0.01) or a percentage (1%), at most 100%");
  }
  return t;
}

std::optional<double> MeasureOf(const std::string& measure, const RunStats& s,
                                absl::Duration duration) {
  if (KindOf(measure) == Kind::kLatency) {
    std::optional<RowStatistic> row = RowStatisticOf(measure, &s);
    return row ? StatisticOf(*row->histogram, row->statistic) : StatisticOf(s.latency, measure);
  }
  uint64_t completed = s.completed();
  uint64_t errors = completed - s.outcome(Outcome::kOk);
  if (measure == "error_rate" || measure == "success_rate") {
    if (completed == 0) return std::nullopt;
    double error_rate = static_cast<double>(errors) / completed;
    return measure == "error_rate" ? error_rate : 1 - error_rate;
  }
  if (measure == "goodput") {  // --llm: answers within every --goodput bound, of all requests.
    if (completed == 0) return std::nullopt;
    return static_cast<double>(s.llm_good) / completed;
  }
  if (measure == "grpc_error_rate") {  // Failed calls and calls that ended other than OK.
    if (completed == 0) return std::nullopt;
    return static_cast<double>(errors + s.grpc_errors()) / completed;
  }
  if (std::optional<int> code = GrpcCodeOf(measure)) {
    return static_cast<double>(s.grpc_status[static_cast<size_t>(*code)]);
  }
  if (measure == "rps") {
    double seconds = absl::ToDoubleSeconds(duration);
    return seconds > 0 ? completed / seconds : 0.0;
  }
  if (measure == "errors") return static_cast<double>(errors);
  if (measure == "late_starts") return static_cast<double>(s.late_starts);
  for (size_t o = 0; o < kOutcomeCount; ++o) {
    if (measure == kOutcomeNames[o]) return static_cast<double>(s.outcomes[o]);
  }
  return std::nullopt;
}

absl::Status CheckThresholdTargets(const std::vector<Threshold>& thresholds,
                                   std::span<const std::string> target_names) {
  for (const Threshold& t : thresholds) {
    if (t.target.empty() ||
        std::find(target_names.begin(), target_names.end(), t.target) != target_names.end()) {
      continue;
    }
    if (target_names.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--fail-if '", t.expr, "': names a target, which needs --targets"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("--fail-if '", t.expr, "': no target named '", t.target,
                     "' (targets: ", absl::StrJoin(target_names, ", "), ")"));
  }
  return absl::OkStatus();
}

std::vector<ThresholdResult> EvaluateThresholds(const std::vector<Threshold>& thresholds,
                                                const RunStats& stats, absl::Duration duration,
                                                std::span<const std::string> target_names) {
  std::vector<ThresholdResult> results;
  for (const Threshold& t : thresholds) {
    std::optional<double> value;
    if (t.target.empty()) {
      value = MeasureOf(t.measure, stats, duration);
    } else {
      // One target's outcomes, status codes and latency, measured as a run's.
      auto name = std::find(target_names.begin(), target_names.end(), t.target);
      size_t k = static_cast<size_t>(name - target_names.begin());
      if (name != target_names.end() && k < stats.by_target.size()) {
        RunStats target;
        target.outcomes = stats.by_target[k].outcomes;
        target.status_codes = stats.by_target[k].status_codes;
        target.latency = stats.by_target[k].latency;
        value = MeasureOf(t.measure, target, duration);
      }
    }
    ThresholdResult r{.expr = t.expr, .kind = t.kind, .value = value, .failed = true};
    if (r.value.has_value()) {
      double v = *r.value;
      switch (t.op) {
        case Threshold::Op::kGreater:
          r.failed = v > t.bound;
          break;
        case Threshold::Op::kGreaterEqual:
          r.failed = v >= t.bound;
          break;
        case Threshold::Op::kLess:
          r.failed = v < t.bound;
          break;
        case Threshold::Op::kLessEqual:
          r.failed = v <= t.bound;
          break;
      }
    }
    results.push_back(std::move(r));
  }
  return results;
}

absl::StatusOr<std::vector<Threshold>> ParseThresholds(const std::vector<std::string>& texts) {
  std::vector<Threshold> thresholds;
  for (const std::string& text : texts) {
    URINGLOAD_ASSIGN_OR_RETURN(Threshold threshold, ParseThreshold(text));
    thresholds.push_back(threshold);
  }
  return thresholds;
}

}  // namespace uringload::core
