#include "exporters/search_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "exporters/html_report.h"
#include "exporters/json_text.h"
#include "exporters/report_format.h"
#include "exporters/svg_chart.h"

namespace uringload::exporters {
namespace {

constexpr std::pair<const char*, double> kShown[] = {
    {"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p999", 0.999}};

double AchievedRate(const SearchStep& step) {
  return step.measured_seconds > 0 ? step.stats.completed() / step.measured_seconds : 0;
}

std::string Quantile(const core::RunStats& s, double q) {
  return s.latency.count == 0 ? "n/a" : FormatSeconds(s.latency.Quantile(q) / 1e9);
}

const char* OutcomeName(core::RateSearch::Outcome o) {
  switch (o) {
    case core::RateSearch::Outcome::kFound:
      return "found";
    case core::RateSearch::Outcome::kNoneMet:
      return "none_met";
    case core::RateSearch::Outcome::kOutOfSteps:
      return "out_of_steps";
    case core::RateSearch::Outcome::kUndecided:
      return "undecided";
    case core::RateSearch::Outcome::kRunning:
      break;
  }
  return "running";
}

std::string Verdict(const SearchStep& step) {
  if (step.passed) return step.confirmation ? "pass (confirmed)" : "pass";
  if (step.undecided) return "undecided";
  return step.confirmation ? "FAIL (confirmation)" : "FAIL";
}

}  // namespace

std::string SearchTableHeader() {
  return absl::StrFormat("%12s %12s %9s %9s %9s %9s %8s  %s\n", "rate/s", "achieved/s", "p50",
                         "p90", "p99", "p99.9", "errors", "verdict");
}

std::string SearchTableRow(const SearchStep& step) {
  const core::RunStats& s = step.stats;
  std::string row =
      absl::StrFormat("%12.1f %12.1f %9s %9s %9s %9s %8d  %s", step.rate, AchievedRate(step),
                      Quantile(s, 0.5), Quantile(s, 0.9), Quantile(s, 0.99), Quantile(s, 0.999),
                      s.completed() - s.outcome(core::Outcome::kOk), Verdict(step));
  if (!step.why.empty()) absl::StrAppend(&row, ": ", step.why);
  if (!step.note.empty()) absl::StrAppend(&row, step.why.empty() ? ": " : "; ", step.note);
  return row + "\n";
}

std::string SearchConclusion(const SearchRecord& r) {
  switch (r.outcome) {
    case core::RateSearch::Outcome::kFound:
      return absl::StrFormat(
          "Highest rate meeting every objective: %.1f requests/s (passed twice; %s)\n", r.lower,
          r.upper > 0 ? absl::StrFormat("%.1f/s failed, %.1f%% above", r.upper,
                                        100 * (r.upper / r.lower - 1))
                      : "no step failed: the maximum rate");
    case core::RateSearch::Outcome::kNoneMet:
      return "No rate met every objective: even the start rate failed (or every rate that "
             "passed failed when run again)\n";
    case core::RateSearch::Outcome::kUndecided:
      return "No rate was shown to meet or to fail the objectives: every step, even at "
             "--max-step-duration, had too few requests (raise --max-step-duration or "
             "--max-rate)\n";
    case core::RateSearch::Outcome::kOutOfSteps:
      return absl::StrFormat(
          "Out of steps before the bracket was narrow enough: %.1f/s passed, %.1f/s failed\n",
          r.lower, r.upper);
    case core::RateSearch::Outcome::kRunning:
      break;
  }
  return "";
}

std::string SearchJson(const SearchRecord& r) {
  Json steps = Json::array();
  for (const SearchStep& step : r.steps) {
    Json checks = Json::array();
    for (const core::SloCheck& c : step.checks) {
      checks.push_back({{"slo", c.expr},
                        {"met", c.met},
                        {"measured", c.measured},
                        {"requests", c.requests},
                        {"failed", c.failed},
                        {"beyond", c.beyond},
                        {"allowed", c.allowed},
                        {"failing", c.failing}});
    }
    steps.push_back({{"rate", step.rate},
                     {"achieved_rate", AchievedRate(step)},
                     {"confirmation", step.confirmation},
                     {"passed", step.passed},
                     {"verdict", step.passed      ? "pass"
                                 : step.undecided ? "undecided"
                                                  : "fail"},
                     {"planned_seconds", step.planned_seconds},
                     {"why", step.why.empty() ? Json(nullptr) : Json(step.why)},
                     {"note", step.note.empty() ? Json(nullptr) : Json(step.note)},
                     {"slos", checks},
                     {"result", Json::parse(step.result_json)}});
  }
  bool found = r.outcome == core::RateSearch::Outcome::kFound;
  Json doc = {{"target", r.target},
              {"shard", {{"index", r.shard.index}, {"count", r.shard.count}}},
              {"slos", r.slos},
              {"confidence", r.confidence},
              {"precision", r.precision},
              {"requests_needed", r.requests_needed},
              {"outcome", OutcomeName(r.outcome)},
              {"rate", found ? Json(r.lower) : Json(nullptr)},
              {"bracket",
               {{"lower", r.lower > 0 ? Json(r.lower) : Json(nullptr)},
                {"upper", r.upper > 0 ? Json(r.upper) : Json(nullptr)}}},
              {"steps", steps}};
  return DumpJson(doc);
}

std::string SearchHtml(const SearchRecord& r) {
  // Latency against rate, a point per step (sorted by rate; a rate run twice shows twice).
  std::vector<const SearchStep*> by_rate;
  for (const SearchStep& step : r.steps) {
    if (step.stats.latency.count > 0) by_rate.push_back(&step);
  }
  std::stable_sort(by_rate.begin(), by_rate.end(),
                   [](const SearchStep* a, const SearchStep* b) { return a->rate < b->rate; });
  const char* colors[] = {"#2e7d32", "#1565c0", "#ef6c00", "#c62828"};
  std::vector<ChartSeries> series;
  double low = 0;
  double high = 0;
  for (size_t k = 0; k < std::size(kShown); ++k) {
    ChartSeries line{.name = kShown[k].first, .color = colors[k], .points = {}};
    for (const SearchStep* step : by_rate) {
      double ms = step->stats.latency.Quantile(kShown[k].second) / 1e6;
      line.points.emplace_back(step->rate, ms);
      low = low == 0 ? ms : std::min(low, ms);
      high = std::max(high, ms);
    }
    series.push_back(std::move(line));
  }
  if (r.outcome == core::RateSearch::Outcome::kFound && high > 0) {
    series.push_back({.name = absl::StrFormat("rate found %.1f/s", r.lower),
                      .color = "#000",
                      .points = {{r.lower, low}, {r.lower, high}}});
  }
  std::string body = absl::StrCat("<h1>uringload search: ", HtmlText(r.target), "</h1>\n<p>",
                                  HtmlText(SearchConclusion(r)), "</p>\n<p class=\"note\">");
  for (const std::string& slo : r.slos) absl::StrAppend(&body, HtmlText(slo), " ");
  absl::StrAppend(&body,
                  absl::StrFormat("at %.0f%% confidence, precision %.1f%%</p>\n",
                                  100 * r.confidence, 100 * r.precision),
                  SvgChart({.id = "latency-vs-rate",
                            .title = "Latency against the rate (the knee marked)",
                            .x_label = "requests/s",
                            .y_label = "ms",
                            .log_y = true},
                           series),
                  "<h2>Steps</h2>\n<table><tr><th>rate/s</th><th>achieved/s</th><th>p50</th>"
                  "<th>p99</th><th>verdict</th></tr>\n");
  for (const SearchStep& step : r.steps) {
    absl::StrAppend(&body, absl::StrFormat("<tr><td>%.1f</td><td>%.1f</td><td>%s</td><td>%s</td>"
                                           "<td>%s</td></tr>\n",
                                           step.rate, AchievedRate(step), Quantile(step.stats, 0.5),
                                           Quantile(step.stats, 0.99),
                                           HtmlText(Verdict(step) + (step.why.empty() ? "" : ": ") +
                                                    step.why)));
  }
  absl::StrAppend(&body, "</table>\n");
  return HtmlPage("search " + r.target, body);
}

}  // namespace uringload::exporters
