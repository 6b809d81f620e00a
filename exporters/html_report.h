// `uringload report`: one self-contained HTML file for a run (or a merge of shards): the plan,
// outcome, status-code and error tables, and charts as inline SVG (exporters/svg_chart.h) of
// throughput by outcome, latency quantiles over time, connections and in flight over time
// (from a --timeline), and the latency histogram on a log axis (from the JSON's histogram).
// Opening it needs no network and no script library.
#pragma once

#include <string>
#include <vector>

#include "exporters/run_json_reader.h"
#include "exporters/timeline_reader.h"

namespace uringload::exporters {

std::string HtmlReport(const RunResultFile& run, const std::vector<TimelinePoint>& timeline);
// A whole page around `body` (HTML): the report's style, and the script that marks each
// chart's rendered points for tests.
std::string HtmlPage(const std::string& title, const std::string& body);
// `text` with & < > " escaped.
std::string HtmlText(const std::string& text);

}  // namespace uringload::exporters
