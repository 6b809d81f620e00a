#include "exporters/timeline.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "exporters/json_text.h"

namespace uringload::exporters {

uint64_t TimelineRow::completed() const {
  uint64_t total = 0;
  for (uint64_t n : outcomes) total += n;
  return total;
}

TimelineRow MakeTimelineRow(const core::RunStats& before, const core::RunStats& after, double t,
                            double seconds) {
  TimelineRow row;
  row.t = t;
  row.seconds = seconds;
  row.started = after.started - before.started;
  for (size_t o = 0; o < core::kOutcomeCount; ++o) {
    row.outcomes[o] = after.outcomes[o] - before.outcomes[o];
  }
  row.latency = after.latency.Since(before.latency);
  row.in_flight = after.in_flight();
  row.connections_open = after.connections_open;
  return row;
}

std::string TimelineCsvHeader() {
  std::string header = "t,seconds,started,completed";
  for (const char* name : core::kOutcomeNames) absl::StrAppend(&header, ",", name);
  absl::StrAppend(&header, ",rps,p50,p90,p99,max,in_flight,connections_open\n");
  return header;
}

std::string FormatTimelineRow(const TimelineRow& row, bool csv) {
  const core::HistogramSnapshot& h = row.latency;
  double rps = row.seconds > 0 ? row.completed() / row.seconds : 0;
  std::optional<double> q[4];
  if (h.count > 0) {
    q[0] = h.Quantile(0.5) / 1e9;
    q[1] = h.Quantile(0.9) / 1e9;
    q[2] = h.Quantile(0.99) / 1e9;
    q[3] = h.max / 1e9;
  }
  if (csv) {
    std::string line =
        absl::StrFormat("%.3f,%.3f,%d,%d", row.t, row.seconds, row.started, row.completed());
    for (uint64_t n : row.outcomes) absl::StrAppend(&line, ",", n);
    absl::StrAppend(&line, absl::StrFormat(",%.3f", rps));
    for (const std::optional<double>& v : q) {
      absl::StrAppend(&line, ",", v ? absl::StrFormat("%.9f", *v) : "");
    }
    absl::StrAppend(&line, ",", row.in_flight, ",", row.connections_open, "\n");
    return line;
  }
  Json j = {{"t", row.t},
            {"seconds", row.seconds},
            {"started", row.started},
            {"completed", row.completed()}};
  for (size_t o = 0; o < core::kOutcomeCount; ++o) j[core::kOutcomeNames[o]] = row.outcomes[o];
  j["rps"] = rps;
  const char* names[] = {"p50", "p90", "p99", "max"};
  for (int i = 0; i < 4; ++i) j[names[i]] = q[i] ? Json(*q[i]) : Json(nullptr);
  j["in_flight"] = row.in_flight;
  j["connections_open"] = row.connections_open;
  return j.dump() + "\n";
}

}  // namespace uringload::exporters
