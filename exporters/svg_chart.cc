#include "exporters/svg_chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace uringload::exporters {
namespace {

constexpr double kWidth = 760;
constexpr double kHeight = 300;
constexpr double kLeft = 70;  // Room for the y ticks.
constexpr double kRight = 20;
constexpr double kTop = 40;  // Title and legend.
constexpr double kBottom = 45;

std::string Escape(const std::string& text) {
  return absl::StrReplaceAll(text,
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// Maps data values on one axis to pixels, linearly or in log10.
struct Axis {
  double low = 0;
  double high = 1;
  bool log = false;
  double Map(double v, double from, double to) const {
    double a = log ? std::log10(low) : low;
    double b = log ? std::log10(high) : high;
    double x = log ? std::log10(v) : v;
    return from + (x - a) / (b - a) * (to - from);
  }
  // About five round values inside [low, high]: powers of ten on a log axis.
  std::vector<double> Ticks() const {
    std::vector<double> ticks;
    if (log) {
      for (double t = std::pow(10, std::floor(std::log10(low))); t <= high * 1.0001; t *= 10) {
        if (t >= low * 0.9999) ticks.push_back(t);
      }
      return ticks;
    }
    double step = std::pow(10, std::floor(std::log10((high - low) / 5)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
      if ((high - low) / (step * m) <= 6) {
        step *= m;
        break;
      }
    }
    for (double t = std::ceil(low / step) * step; t <= high + step * 1e-9; t += step)
      ticks.push_back(t);
    return ticks;
  }
};

std::string Number(double v) {
  double a = std::fabs(v);
  if (a >= 1e9) return absl::StrFormat("%gG", v / 1e9);
  if (a >= 1e6) return absl::StrFormat("%gM", v / 1e6);
  if (a >= 1e4) return absl::StrFormat("%gk", v / 1e3);
  return absl::StrFormat("%g", v);
}

Axis Fit(const std::vector<ChartSeries>& series, bool x, bool log, bool from_zero) {
  Axis axis{.low = 0, .high = 0, .log = log};
  bool any = false;
  for (const ChartSeries& s : series) {
    for (const auto& [px, py] : s.points) {
      double v = x ? px : py;
      if (log && v <= 0) continue;
      axis.low = any ? std::min(axis.low, v) : v;
      axis.high = any ? std::max(axis.high, v) : v;
      any = true;
    }
  }
  if (!any) return {.low = log ? 1.0 : 0.0, .high = log ? 10.0 : 1.0, .log = log};
  if (log) {
    axis.low = std::pow(10, std::floor(std::log10(axis.low)));
    axis.high = std::pow(10, std::ceil(std::log10(axis.high * 1.0001)));
  } else {
    if (from_zero) axis.low = std::min(axis.low, 0.0);
    if (axis.high <= axis.low) axis.high = axis.low + 1;
  }
  return axis;
}

}  // namespace

std::string SvgChart(const ChartSpec& spec, const std::vector<ChartSeries>& series) {
  Axis x = Fit(series, /*x=*/true, spec.log_x, /*from_zero=*/!spec.log_x);
  Axis y = Fit(series, /*x=*/false, spec.log_y, /*from_zero=*/true);
  double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  std::string body;
  size_t drawn = 0;
  // A tick: its grid line across the plot, its label at (tx, ty).
  auto tick = [&](double lx0, double ly0, double lx1, double ly1, double tx, double ty,
                  const char* anchor, double value) {
    absl::StrAppend(
        &body,
        absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                        "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"%s\">%s</text>\n",
                        lx0, ly0, lx1, ly1, tx, ty, anchor, Number(value)));
  };
  for (double t : x.Ticks()) {
    double px = x.Map(t, x0, x1);
    tick(px, y0, px, y1, px, y0 + 16, "middle", t);
  }
  for (double t : y.Ticks()) {
    double py = y.Map(t, y0, y1);
    tick(x0, py, x1, py, x0 - 6, py + 4, "end", t);
  }
  double legend_x = x0;
  for (const ChartSeries& s : series) {
    std::string points;
    for (const auto& [vx, vy] : s.points) {
      if ((spec.log_x && vx <= 0) || (spec.log_y && vy <= 0)) continue;
      double px = x.Map(vx, x0, x1);
      double py = y.Map(vy, y0, y1);
      if (spec.bars) {
        absl::StrAppend(
            &body,
            absl::StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"%.1f\" fill=\"%s\"/>",
                            px - 1.5, py, std::max(0.0, y0 - py), Escape(s.color)));
      } else {
        absl::StrAppend(&points, absl::StrFormat("%.1f,%.1f ", px, py));
      }
      ++drawn;
    }
    if (!spec.bars) {
      absl::StrAppend(&body, "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"",
                      Escape(s.color), "\" points=\"", points, "\"/>\n");
    }
    absl::StrAppend(
        &body, absl::StrFormat("<rect x=\"%.1f\" y=\"22\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                               "<text x=\"%.1f\" y=\"31\" class=\"legend\">%s</text>\n",
                               legend_x, Escape(s.color), legend_x + 14, Escape(s.name)));
    legend_x += 24 + 7 * static_cast<double>(s.name.size());
    if (spec.bars) break;
  }
  return absl::StrCat(
      absl::StrFormat("<svg id=\"%s\" class=\"chart\" data-points=\"%d\" viewBox=\"0 0 %g %g\" "
                      "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n",
                      Escape(spec.id), drawn, kWidth, kHeight),
      "<title>", Escape(spec.title), "</title>\n",
      absl::StrFormat("<text x=\"%.1f\" y=\"14\" class=\"title\">%s</text>\n", x0,
                      Escape(spec.title)),
      body,
      absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>"
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n",
                      x0, y0, x1, y0, x0, y0, x0, y1),
      absl::StrFormat(
          "<text x=\"%.1f\" y=\"%.1f\" class=\"label\" text-anchor=\"middle\">%s</text>\n",
          (x0 + x1) / 2, kHeight - 8, Escape(spec.x_label)),
      absl::StrFormat("<text x=\"14\" y=\"%.1f\" class=\"label\" text-anchor=\"middle\" "
                      "transform=\"rotate(-90 14 %.1f)\">%s</text>\n",
                      (y0 + y1) / 2, (y0 + y1) / 2, Escape(spec.y_label)),
      "</svg>\n");
}

}  // namespace uringload::exporters
