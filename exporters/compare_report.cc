#include "exporters/compare_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "exporters/json_text.h"
#include "exporters/report_format.h"

namespace uringload::exporters {
namespace {

// A measure's value for people: requests/s, a duration, a percentage or CPU time.
std::string Value(const std::string& measure, double v) {
  if (measure == "rps") return absl::StrFormat("%.1f/s", v);
  if (measure == "error_rate") return absl::StrFormat("%.3f%%", 100 * v);
  if (measure == "cpu_per_request") return v == 0 ? "n/a" : FormatSeconds(v);
  return FormatSeconds(v / 1e9);  // Latencies are in nanoseconds.
}

std::string Percent(double shift) {
  if (std::isinf(shift)) return "+inf%";
  return absl::StrFormat("%+.1f%%", 100 * shift);
}

std::string Interval(const core::MeasureShift& m) {
  if (!m.judged) return "";
  return absl::StrCat("[", Percent(m.shift.lower), ", ", Percent(m.shift.upper), "]");
}

std::string Verdict(const core::MeasureShift& m) {
  if (!m.judged) return "not tested";
  if (!m.shift.significant) return "no";
  return m.shift.shift > 0 ? "yes, higher" : "yes, lower";
}

std::string RankLine(const CompareRecord& r) {
  const core::RankTest& t = r.comparison.latency;
  return absl::StrFormat(
      "Latency distribution (Mann-Whitney U): a new request took longer than a base one in "
      "%.1f%% of pairs, z %.2f, p %.3g: %s",
      100 * t.superiority, t.z, t.p,
      r.base_runs > 1 ? "shown only (the runs pooled; the measures above are tested over the runs)"
      : !r.comparison.latency_judged
          ? "shown only (it sees the noise within each run, not the spread between runs)"
      : t.significant ? (t.superiority > 0.5 ? "the new run is slower" : "the new run is faster")
                      : "no significant difference");
}

// "rps 2.0%, mean 2.0%, ...", in the table's order.
std::string SpreadText(const core::RunSpread& spread, const core::Comparison& c) {
  std::string out;
  for (const core::MeasureShift& m : c.measures) {
    if (!spread.by_measure.contains(m.measure)) continue;
    absl::StrAppend(&out, out.empty() ? "" : ", ", m.measure,
                    absl::StrFormat(" %.1f%%", 100 * spread.Of(m.measure)));
  }
  return out;
}

// One run a side cannot show how much runs of one setting differ (docs/compare.md): the
// reader is told what was assumed, and several runs a side measure it.
std::string SpreadNote(const CompareRecord& r) {
  const core::Comparison& c = r.comparison;
  if (r.base_runs > 1) {
    return absl::StrCat("Spread between runs (relative SD), base: ", SpreadText(c.base_spread, c),
                        "; new: ", SpreadText(c.next_spread, c),
                        " (--run-spread takes these for one run against one)");
  }
  bool none = true;
  for (const auto& [measure, value] : c.assumed_spread.by_measure) none = none && value == 0;
  if (none) {
    return "Note: one run a side and no spread between runs assumed, so \"significant\" is "
           "against the noise within each run; runs of one setting differ by more than that.";
  }
  return absl::StrCat(
      "Note: one run a side, so each shift is also judged against how much runs of one setting "
      "differ on their own, assumed (--run-spread): ",
      SpreadText(c.assumed_spread, c),
      ". Several runs a side (--base A --base B --new C --new D) measure it on your machine.");
}

// "a.json" or "a.json, b.json (2 runs)".
std::string Side(const std::string& names, size_t runs) {
  return runs > 1 ? absl::StrFormat("%s (%d runs)", names, runs) : names;
}

}  // namespace

std::string CompareTable(const CompareRecord& r) {
  std::string out = absl::StrFormat(
      "Base: %s\nNew:  %s\n%-16s %12s %12s %9s %22s  %s\n", Side(r.base_name, r.base_runs),
      Side(r.next_name, r.next_runs), "measure", "base", "new", "shift",
      absl::StrFormat("%.0f%% interval", 100 * r.confidence), "significant");
  for (const core::MeasureShift& m : r.comparison.measures) {
    absl::StrAppend(&out,
                    absl::StrFormat("%-16s %12s %12s %9s %22s  %s\n", m.measure,
                                    Value(m.measure, m.shift.base), Value(m.measure, m.shift.next),
                                    Percent(m.shift.shift), Interval(m), Verdict(m)));
  }
  absl::StrAppend(&out, RankLine(r), "\n", SpreadNote(r), "\n");
  for (const auto& [expr, failed] : r.margins) {
    absl::StrAppend(&out, "--fail-if ", expr, ": ", failed ? "FAILED" : "ok", "\n");
  }
  return out;
}

std::string CompareMarkdown(const CompareRecord& r) {
  std::string out = absl::StrFormat(
      "**uringload compare**: `%s` → `%s` (%.0f%% confidence)\n\n| measure | base | new | "
      "shift | interval | significant |\n|---|---|---|---|---|---|\n",
      Side(r.base_name, r.base_runs), Side(r.next_name, r.next_runs), 100 * r.confidence);
  for (const core::MeasureShift& m : r.comparison.measures) {
    absl::StrAppend(&out, "| ", m.measure, " | ", Value(m.measure, m.shift.base), " | ",
                    Value(m.measure, m.shift.next), " | ", Percent(m.shift.shift), " | ",
                    Interval(m), " | ", Verdict(m), " |\n");
  }
  absl::StrAppend(&out, "\n", RankLine(r), "\n\n", SpreadNote(r), "\n");
  for (const auto& [expr, failed] : r.margins) {
    absl::StrAppend(&out, "\n- `--fail-if ", expr, "`: ", failed ? "**FAILED**" : "ok");
  }
  if (!r.margins.empty()) absl::StrAppend(&out, "\n");
  return out;
}

std::string CompareJson(const CompareRecord& r) {
  Json measures = Json::array();
  auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  for (const core::MeasureShift& m : r.comparison.measures) {
    measures.push_back({{"measure", m.measure},
                        {"base", number(m.shift.base)},
                        {"new", number(m.shift.next)},
                        {"shift", number(m.shift.shift)},
                        {"tested", m.judged},
                        {"lower", m.judged ? number(m.shift.lower) : Json(nullptr)},
                        {"upper", m.judged ? number(m.shift.upper) : Json(nullptr)},
                        {"p", m.judged ? number(m.shift.p) : Json(nullptr)},
                        {"significant", m.judged && m.shift.significant}});
  }
  Json margins = Json::array();
  bool failed_any = false;
  for (const auto& [expr, failed] : r.margins) {
    margins.push_back({{"expr", expr}, {"failed", failed}});
    failed_any = failed_any || failed;
  }
  const core::RankTest& t = r.comparison.latency;
  auto spread = [](const core::RunSpread& s) {
    Json out = Json::object();
    for (const auto& [measure, value] : s.by_measure) out[measure] = value;
    return out;
  };
  Json run_spread = r.base_runs > 1 ? Json{{"base", spread(r.comparison.base_spread)},
                                           {"new", spread(r.comparison.next_spread)}}
                                    : Json{{"assumed", spread(r.comparison.assumed_spread)}};
  return DumpJson({{"base", r.base_name},
                   {"new", r.next_name},
                   {"runs", {{"base", r.base_runs}, {"new", r.next_runs}}},
                   {"confidence", r.confidence},
                   {"measures", measures},
                   {"latency_rank_test",
                    {{"superiority", t.superiority},
                     {"z", t.z},
                     {"p", t.p},
                     {"tested", r.comparison.latency_judged},
                     {"significant", r.comparison.latency_judged && t.significant}}},
                   {"run_spread", run_spread},
                   {"fail_if", margins},
                   {"failed", failed_any}});
}

}  // namespace uringload::exporters
