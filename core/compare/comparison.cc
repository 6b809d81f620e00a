#include "core/compare/comparison.h"

#include <cmath>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace uringload::core {
namespace {

constexpr const char* kMeasures[] = {"rps", "mean", "p50",        "p90",
                                     "p99", "p999", "error_rate", "cpu_per_request"};
// The measures a spread between runs is kept for: a rate of errors may be 0 in every run.
constexpr std::string_view kSpreadMeasures[] = {"rps", "mean", "p50", "p90", "p99", "p999"};

// Requests per second in each whole interval after the warmup.
std::vector<double> Rates(const CompareSide& side) {
  std::vector<double> rates;
  auto skip = static_cast<size_t>(std::ceil(side.warmup_seconds / side.interval_seconds));
  for (size_t i = skip; i < side.ok_per_interval.size(); ++i) {
    rates.push_back(side.ok_per_interval[i] / side.interval_seconds);
  }
  return rates;
}

double CpuPerRequest(const RunStats& s) {
  uint64_t completed = s.completed();
  if (completed == 0) return 0;
  return (s.generator.cpu_user_ns + s.generator.cpu_system_ns) / 1e9 / completed;
}

// One run's value of a measure of kMeasures; latencies in ns.
double ValueOf(const CompareSide& side, std::string_view measure) {
  const RunStats& s = *side.stats;
  if (measure == "cpu_per_request") return CpuPerRequest(s);
  if (measure == "rps")
    return side.measured_seconds > 0 ? s.completed() / side.measured_seconds : 0;
  if (measure == "error_rate") {
    return s.completed() == 0
               ? 0
               : static_cast<double>(s.completed() - s.outcome(Outcome::kOk)) / s.completed();
  }
  if (measure == "mean") return s.latency.Mean();
  double q = measure == "p50" ? 0.5 : measure == "p90" ? 0.9 : measure == "p99" ? 0.99 : 0.999;
  return static_cast<double>(s.latency.Quantile(q));
}

}  // namespace

double RunSpread::Of(std::string_view measure) const {
  auto it = by_measure.find(measure);
  return it == by_measure.end() ? 0 : it->second;
}

bool RunSpread::any_latency() const {
  for (std::string_view m : kSpreadMeasures) {
    if (m != "rps" && Of(m) > 0) return true;
  }
  return false;
}

RunSpread DefaultRunSpread() {
  RunSpread s;
  s.by_measure = {{"rps", 0.02}, {"mean", 0.02}, {"p50", 0.005},
                  {"p90", 0.04}, {"p99", 0.35},  {"p999", 0.80}};
  return s;
}

absl::StatusOr<RunSpread> ParseRunSpread(std::span<const std::string> texts) {
  RunSpread spread = DefaultRunSpread();
  for (const std::string& text : texts) {
    auto fail = [&text](const std::string& why) {
      return absl::InvalidArgumentError(absl::StrCat("--run-spread '", text, "': ", why));
    };
    size_t at = text.find('=');
    if (at == std::string::npos) return fail("expected MEASURE=N%, e.g. p99=8% or all=2%");
    std::string measure(absl::StripAsciiWhitespace(text.substr(0, at)));
    std::string value(absl::StripAsciiWhitespace(text.substr(at + 1)));
    bool known = measure == "all";
    for (std::string_view m : kSpreadMeasures) known = known || measure == m;
    if (!known) {
      return fail(absl::StrCat("unknown measure '", measure, "' (rps mean p50 p90 p99 p999 all)"));
    }
    double percent = 0;
    if (value.size() < 2 || value.back() != '%' ||
        !absl::SimpleAtod(value.substr(0, value.size() - 1), &percent) || !std::isfinite(percent) ||
        percent < 0 || percent > 1000) {
      return fail("the spread is a percentage from 0% to 1000%, e.g. 8%");
    }
    for (std::string_view m : kSpreadMeasures) {
      if (measure == "all" || measure == m) spread.by_measure[std::string(m)] = percent / 100;
    }
  }
  return spread;
}

RunSpread MeasureRunSpread(std::span<const CompareSide> runs) {
  RunSpread spread;
  for (std::string_view measure : kSpreadMeasures) {
    std::vector<double> values;
    for (const CompareSide& side : runs) values.push_back(ValueOf(side, measure));
    spread.by_measure[std::string(measure)] = RelativeSpread(values);
  }
  return spread;
}

Comparison CompareRuns(std::span<const CompareSide> base, std::span<const CompareSide> next,
                       double confidence) {
  Comparison c;
  bool judged = base.size() >= 2 && next.size() >= 2;
  for (std::string_view measure : kMeasures) {
    auto values = [measure](std::span<const CompareSide> sides) {
      std::vector<double> v;
      for (const CompareSide& side : sides) v.push_back(ValueOf(side, measure));
      return v;
    };
    bool shown_only = measure == "cpu_per_request";  // As with one run a side.
    c.measures.push_back({std::string(measure), Welch(values(base), values(next), confidence),
                          judged && !shown_only});
  }
  HistogramSnapshot pooled_a, pooled_b;
  for (const CompareSide& side : base) pooled_a.Merge(side.stats->latency);
  for (const CompareSide& side : next) pooled_b.Merge(side.stats->latency);
  c.latency = MannWhitney(pooled_a, pooled_b, confidence);
  c.latency_judged = false;
  c.base_spread = MeasureRunSpread(base);
  c.next_spread = MeasureRunSpread(next);
  return c;
}

Comparison Compare(const CompareSide& base, const CompareSide& next, double confidence,
                   const RunSpread& spread) {
  Comparison c;
  const RunStats& a = *base.stats;
  const RunStats& b = *next.stats;
  std::vector<double> ra = Rates(base), rb = Rates(next);
  Shift rps = Welch(ra, rb, confidence);
  bool rps_judged = ra.size() >= 2 && rb.size() >= 2;
  if (!rps_judged) {  // Too short for a test: the rates of the whole runs, shown only.
    rps = {};
    rps.base = ValueOf(base, "rps");
    rps.next = ValueOf(next, "rps");
    rps.shift = rps.base == 0 ? 0 : rps.next / rps.base - 1;
  }
  c.measures.push_back({"rps", rps, rps_judged});
  const double quantiles[] = {-1, 0.5, 0.9, 0.99, 0.999};
  std::vector<Shift> latency = BootstrapShifts(a.latency, b.latency, quantiles, confidence);
  for (size_t k = 0; k < latency.size(); ++k) {
    c.measures.push_back(
        {kMeasures[1 + k], latency[k], a.latency.count > 0 && b.latency.count > 0});
  }
  uint64_t ea = a.completed() - a.outcome(Outcome::kOk);
  uint64_t eb = b.completed() - b.outcome(Outcome::kOk);
  c.measures.push_back(
      {"error_rate", TwoProportions(ea, a.completed(), eb, b.completed(), confidence), true});
  Shift cpu;
  cpu.base = CpuPerRequest(a);
  cpu.next = CpuPerRequest(b);
  cpu.shift = cpu.base == 0 ? 0 : cpu.next / cpu.base - 1;
  c.measures.push_back({"cpu_per_request", cpu, false});
  for (MeasureShift& m : c.measures) {
    if (m.judged) m.shift = WithRunSpread(m.shift, spread.Of(m.measure), confidence);
  }
  c.latency = MannWhitney(a.latency, b.latency, confidence);
  c.latency_judged = !spread.any_latency();
  c.assumed_spread = spread;
  return c;
}

absl::StatusOr<Margin> ParseMargin(const std::string& text) {
  auto fail = [&text](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("--fail-if '", text, "': ", why));
  };
  size_t at = text.find_first_of("<>");
  if (at == std::string::npos) return fail("expected MEASURE>+N% or MEASURE<-N%, e.g. p99>+10%");
  Margin m;
  m.expr = text;
  m.measure = std::string(absl::StripAsciiWhitespace(text.substr(0, at)));
  m.above = text[at] == '>';
  bool known = false;
  for (const char* name : kMeasures)
    known = known || (m.measure == name && m.measure != "cpu_per_request");
  if (!known) {
    return fail(
        absl::StrCat("unknown measure '", m.measure, "' (rps mean p50 p90 p99 p999 error_rate)"));
  }
  std::string value(absl::StripAsciiWhitespace(text.substr(at + 1)));
  if (value.size() < 3 || (value[0] != '+' && value[0] != '-') || value.back() != '%' ||
      !absl::SimpleAtod(value.substr(1, value.size() - 2), &m.margin) || !std::isfinite(m.margin) ||
      m.margin < 0) {
    return fail("the margin is a signed percentage of the base, e.g. +10% or -5%");
  }
  m.margin = (value[0] == '-' ? -m.margin : m.margin) / 100;
  return m;
}

bool MarginFails(const Margin& margin, const Comparison& comparison) {
  for (const MeasureShift& m : comparison.measures) {
    if (m.measure != margin.measure) continue;
    if (!m.judged || !m.shift.significant) return false;
    return margin.above ? m.shift.shift > margin.margin : m.shift.shift < margin.margin;
  }
  return false;
}

}  // namespace uringload::core
