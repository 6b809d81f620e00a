// Charts as inline SVG for the HTML report (`uringload report`): written by uringload itself,
// so a report is one small file that needs no script library and no network to open, and
// renders the same in every browser. Lines (time series) and bars (a histogram), with a linear
// or log axis.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace uringload::exporters {

struct ChartSeries {
  std::string name;
  std::string color;                              // CSS colour.
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending.
};

struct ChartSpec {
  std::string id;  // The <svg> element's id.
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;  // Log axes skip points <= 0.
  bool log_y = false;
  bool bars = false;  // Bars from the axis up to each point (the first series only).
};

// An <svg> with axes, ticks, a legend and one polyline (or bars) per series. Its attribute
// data-points holds how many points it drew, for tests.
std::string SvgChart(const ChartSpec& spec, const std::vector<ChartSeries>& series);

}  // namespace uringload::exporters
