#include "exporters/html_report.h"

#include <array>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "core/run/run_histograms.h"
#include "exporters/report_format.h"
#include "exporters/svg_chart.h"

namespace uringload::exporters {
namespace {

// One colour per outcome, in kOutcomeNames order.
constexpr std::array<const char*, core::kOutcomeCount> kOutcomeColors = {
    "#2e7d32", "#ef6c00", "#c62828", "#6a1b9a", "#1565c0", "#795548"};

std::string Html(const std::string& text) {
  return absl::StrReplaceAll(text,
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

std::string Row(const std::string& key, const std::string& value) {
  return absl::StrCat("<tr><th>", Html(key), "</th><td>", Html(value), "</td></tr>\n");
}

std::string PlanTable(const RunResultFile& run) {
  const core::RunStats& s = run.stats;
  absl::Duration d = run.ended_at - run.started_at;
  std::string out = "<table class=\"plan\">\n";
  absl::StrAppend(&out, Row("target", run.target));
  absl::StrAppend(&out, Row("run id", run.run_id));
  if (!run.machine.empty()) absl::StrAppend(&out, Row("machine", run.machine));
  if (run.merged_shards > 0) {
    absl::StrAppend(&out, Row("merged", absl::StrCat(run.merged_shards, " shards")));
  }
  if (run.shard.count > 1) {
    absl::StrAppend(&out, Row("shard", absl::StrCat(run.shard.index, " of ", run.shard.count)));
  }
  absl::StrAppend(&out,
                  Row("requests planned", run.planned ? absl::StrCat(*run.planned) : "duration"));
  absl::StrAppend(&out,
                  Row("connections, threads", absl::StrCat(run.concurrency, ", ", run.threads)));
  if (run.rate) absl::StrAppend(&out, Row("rate (-R)", absl::StrFormat("%g/s", *run.rate)));
  if (run.pipeline > 1) {
    absl::StrAppend(&out, Row("in flight per connection (-p)", absl::StrCat(run.pipeline)));
  }
  absl::StrAppend(&out, Row("started", absl::FormatTime(absl::RFC3339_full, run.started_at,
                                                        absl::UTCTimeZone())));
  absl::StrAppend(&out, Row("duration", FormatSeconds(absl::ToDoubleSeconds(d))));
  absl::StrAppend(&out,
                  Row("completed", absl::StrCat(s.completed(), " of ", s.started, " started")));
  if (run.tls) {
    absl::StrAppend(
        &out, Row("TLS", absl::StrCat(run.tls_version, " ", run.tls_cipher, ", ", s.tls_handshakes,
                                      " handshakes (", s.tls_resumed, " resumed)")));
  }
  if (s.connections_http3 > 0) {
    absl::StrAppend(&out, Row("connections HTTP/1.1 / HTTP/2 / HTTP/3",
                              absl::StrCat(s.connections_http1(), " / ", s.connections_http2, " / ",
                                           s.connections_http3)));
  } else if (s.connections_http2 > 0) {
    absl::StrAppend(&out, Row("connections HTTP/1.1 / HTTP/2",
                              absl::StrCat(s.connections_http1(), " / ", s.connections_http2)));
  }
  if (s.latency.count > 0) {
    absl::StrAppend(&out, Row("latency p50 / p90 / p99 / max",
                              absl::StrCat(FormatSeconds(s.latency.Quantile(0.5) / 1e9), " / ",
                                           FormatSeconds(s.latency.Quantile(0.9) / 1e9), " / ",
                                           FormatSeconds(s.latency.Quantile(0.99) / 1e9), " / ",
                                           FormatSeconds(s.latency.max / 1e9))));
  }
  for (const core::HistogramRow& row : core::kRunHistograms) {  // Time to head, first byte.
    const core::HistogramSnapshot& h = s.*row.member;
    if (row.summary.empty() || h.count == 0) continue;
    absl::StrAppend(&out, Row(absl::StrCat(std::string(row.note), " p50 / p90 / p99 / max"),
                              absl::StrCat(FormatSeconds(h.Quantile(0.5) / 1e9), " / ",
                                           FormatSeconds(h.Quantile(0.9) / 1e9), " / ",
                                           FormatSeconds(h.Quantile(0.99) / 1e9), " / ",
                                           FormatSeconds(h.max / 1e9))));
  }
  return out + "</table>\n";
}

// Per target (--targets): requests, share ok, latency quantiles of its ok requests, failed and
// non-2xx; nothing without per-target results.
std::string TargetsTable(const RunResultFile& run) {
  const core::RunStats& s = run.stats;
  if (run.target_names.empty() || s.by_target.size() < run.target_names.size()) return "";
  // A flow's steps are its targets; then the iterations aborted at each step too.
  bool flow = run.flow;
  std::string out = absl::StrCat(
      flow ? "<h2>Per step</h2>\n" : "<h2>Per target</h2>\n", "<table class=\"targets\"><tr><th>",
      flow ? "step" : "target",
      "</th><th>requests</th><th>ok</th><th>p50</th><th>p99</th><th>p99.9</th><th>failed</th>"
      "<th>non-2xx</th>",
      flow ? "<th>aborted iterations</th>" : "", "</tr>\n");
  for (size_t t = 0; t < run.target_names.size(); ++t) {
    const core::TargetStats& target = s.by_target[t];
    uint64_t requests = target.requests();
    uint64_t ok = target.outcomes[static_cast<size_t>(core::Outcome::kOk)];
    auto quantile = [&](double q) {
      return target.latency.count > 0 ? FormatSeconds(target.latency.Quantile(q) / 1e9) : "-";
    };
    absl::StrAppend(&out, "<tr><td>", Html(run.target_names[t]), "</td><td>", requests, "</td><td>",
                    requests > 0 ? absl::StrFormat("%.2f%%", 100.0 * ok / requests) : "-",
                    "</td><td>", quantile(0.5), "</td><td>", quantile(0.99), "</td><td>",
                    quantile(0.999), "</td><td>", requests - ok, "</td><td>", target.non_2xx(),
                    flow ? absl::StrCat("</td><td>", target.aborted) : "", "</td></tr>\n");
  }
  return out + "</table>\n";
}

std::string CountTables(const core::RunStats& s) {
  std::string out = "<table class=\"outcomes\"><tr><th>outcome</th><th>requests</th></tr>\n";
  for (size_t o = 0; o < core::kOutcomeCount; ++o) {
    absl::StrAppend(&out, "<tr><td>", core::kOutcomeNames[o], "</td><td>", s.outcomes[o],
                    "</td></tr>\n");
  }
  absl::StrAppend(&out,
                  "</table>\n<table class=\"status\"><tr><th>status</th><th>responses</th></tr>\n");
  for (size_t code = 0; code < s.status_codes.size(); ++code) {
    if (s.status_codes[code] == 0) continue;
    absl::StrAppend(&out, "<tr><td>", code, "</td><td>", s.status_codes[code], "</td></tr>\n");
  }
  absl::StrAppend(&out,
                  "</table>\n<table class=\"errors\"><tr><th>outcome</th><th>cause</th>"
                  "<th>requests</th></tr>\n");
  for (size_t o = 1; o < core::kOutcomeCount; ++o) {
    for (size_t e = 0; e < core::kErrnoSlots; ++e) {
      if (s.causes[o][e] == 0) continue;
      absl::StrAppend(&out, "<tr><td>", core::kOutcomeNames[o], "</td><td>", Html(CauseText(o, e)),
                      "</td><td>", s.causes[o][e], "</td></tr>\n");
    }
  }
  return out + "</table>\n";
}

std::string TimelineCharts(const std::vector<TimelinePoint>& timeline) {
  if (timeline.empty()) {
    return "<p class=\"note\">No timeline: run with <code>--timeline FILE</code> and pass it to "
           "<code>uringload report --timeline FILE</code> for charts over time.</p>\n";
  }
  std::vector<ChartSeries> throughput;
  for (size_t o = 0; o < core::kOutcomeCount; ++o) {
    ChartSeries series{.name = core::kOutcomeNames[o], .color = kOutcomeColors[o], .points = {}};
    bool any = false;
    for (const TimelinePoint& p : timeline) {
      double rate = p.seconds > 0 ? p.outcomes[o] / p.seconds : 0;
      series.points.emplace_back(p.t, rate);
      any = any || p.outcomes[o] > 0;
    }
    if (any || o == 0) throughput.push_back(std::move(series));
  }
  const char* names[] = {"p50", "p90", "p99", "max"};
  const char* colors[] = {"#1565c0", "#2e7d32", "#ef6c00", "#c62828"};
  std::vector<ChartSeries> latency;
  for (int i = 0; i < 4; ++i) {
    ChartSeries series{.name = names[i], .color = colors[i], .points = {}};
    for (const TimelinePoint& p : timeline) {
      if (p.latency[i]) series.points.emplace_back(p.t, *p.latency[i] * 1e3);
    }
    latency.push_back(std::move(series));
  }
  ChartSeries open{.name = "connections open", .color = "#6a1b9a", .points = {}};
  ChartSeries in_flight{.name = "requests in flight", .color = "#1565c0", .points = {}};
  for (const TimelinePoint& p : timeline) {
    open.points.emplace_back(p.t, static_cast<double>(p.connections_open));
    in_flight.points.emplace_back(p.t, static_cast<double>(p.in_flight));
  }
  return absl::StrCat(SvgChart({.id = "throughput",
                                .title = "Throughput by outcome",
                                .x_label = "seconds",
                                .y_label = "requests/s"},
                               throughput),
                      SvgChart({.id = "latency-over-time",
                                .title = "Latency quantiles per interval (ok responses)",
                                .x_label = "seconds",
                                .y_label = "ms",
                                .log_y = true},
                               latency),
                      SvgChart({.id = "connections",
                                .title = "Connections and requests in flight",
                                .x_label = "seconds",
                                .y_label = "count"},
                               {open, in_flight}));
}

std::string HistogramChart(const core::HistogramSnapshot& h, const std::string& id = "histogram",
                           const std::string& title = "Latency histogram (log axis)") {
  ChartSeries bars{.name = "ok responses per bucket", .color = "#1565c0", .points = {}};
  for (size_t i = 0; i < h.counts.size(); ++i) {
    if (h.counts[i] == 0) continue;
    double ms = (core::HistogramBuckets::Lower(i) + core::HistogramBuckets::Width(i) / 2.0) / 1e6;
    bars.points.emplace_back(ms, static_cast<double>(h.counts[i]));
  }
  return SvgChart({.id = id,
                   .title = title,
                   .x_label = "ms",
                   .y_label = "responses",
                   .log_x = true,
                   .bars = true},
                  {bars});
}

// The time to the head and to the first byte, as the latency's histogram (when measured).
std::string ResponseTimeCharts(const core::RunStats& s) {
  std::string out;
  for (const core::HistogramRow& row : core::kRunHistograms) {
    const core::HistogramSnapshot& h = s.*row.member;
    if (row.summary.empty() || h.count == 0) continue;
    std::string note(row.note);
    note[0] = static_cast<char>(std::toupper(note[0]));
    absl::StrAppend(&out, HistogramChart(h, absl::StrCat("histogram-", std::string(row.measure)),
                                         absl::StrCat(note, " (log axis)")));
  }
  return out;
}

constexpr char kStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 800px; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0 16px; } th, td { padding: 3px 10px; text-align: left; }
th { color: #555; font-weight: 600; } tr:nth-child(even) td { background: #f5f5f5; }
svg.chart { width: 100%; height: auto; margin: 8px 0 20px; }
.grid { stroke: #e6e6e6; } .axis { stroke: #555; } .tick, .legend, .label { font-size: 11px; fill: #444; }
.title { font-size: 13px; font-weight: 600; fill: #222; } .note { color: #666; }
)css";

// After loading, each chart says how many points it shows (data-rendered-points), for tests
// that read the page back through a browser.
constexpr char kScript[] = R"js(
window.addEventListener("error", function (e) {
  document.body.setAttribute("data-errors", String(e.message));
});
document.querySelectorAll("svg.chart").forEach(function (svg) {
  var n = 0;
  svg.querySelectorAll("polyline").forEach(function (line) { n += line.points.numberOfItems; });
  n += svg.querySelectorAll("rect").length - svg.querySelectorAll("text.legend").length;
  svg.setAttribute("data-rendered-points", String(n));
});
document.body.setAttribute("data-rendered", "yes");
)js";

}  // namespace

std::string HtmlText(const std::string& text) { return Html(text); }

std::string HtmlPage(const std::string& title, const std::string& body) {
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>uringload: ",
      Html(title), "</title>\n<style>", kStyle, "</style></head>\n<body>\n", body, "<script>",
      kScript, "</script>\n</body></html>\n");
}

std::string HtmlReport(const RunResultFile& run, const std::vector<TimelinePoint>& timeline) {
  return HtmlPage(run.target,
                  absl::StrCat("<h1>uringload run: ", Html(run.target), "</h1>\n", PlanTable(run),
                               "<h2>Outcomes, status codes, errors</h2>\n", CountTables(run.stats),
                               TargetsTable(run), "<h2>Over time</h2>\n", TimelineCharts(timeline),
                               "<h2>Latency distribution</h2>\n", HistogramChart(run.stats.latency),
                               ResponseTimeCharts(run.stats)));
}

}  // namespace uringload::exporters
