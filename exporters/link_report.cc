#include "exporters/link_report.h"

#include "absl/strings/str_cat.h"
#include "exporters/json_text.h"
#include "exporters/report_format.h"

namespace uringload::exporters {
namespace {

constexpr const char* kDirectionNames[] = {"a_to_b", "b_to_a"};

Json CountersJson(const core::LinkCounters& c) {
  return {{"received", c.received},
          {"forwarded", c.forwarded},
          {"bytes_forwarded", c.bytes_forwarded},
          {"lost", c.lost},
          {"queue_dropped", c.queue_dropped},
          {"blackholed", c.blackholed},
          {"duplicated", c.duplicated},
          {"reordered", c.reordered},
          {"write_failed", c.write_failed},
          {"unsent", c.unsent}};
}

}  // namespace

std::string FormatLinkSummary(const LinkReport& report) {
  std::string out;
  for (int d = 0; d < 2; ++d) {
    const core::LinkCounters& c = report.counters[d];
    absl::StrAppend(&out, d == 0 ? "A to B:" : "B to A:", "  received ", c.received, ", forwarded ",
                    c.forwarded, " (", c.bytes_forwarded, " bytes), lost ", c.lost, ", queue full ",
                    c.queue_dropped, ", blackholed ", c.blackholed, ", duplicated ", c.duplicated,
                    ", reordered ", c.reordered, ", write failed ", c.write_failed,
                    ", unsent at exit ", c.unsent);
    const core::HistogramSnapshot& late = report.lateness[d];
    if (late.count > 0) {
      absl::StrAppend(&out, "; left late by p50 ", FormatSeconds(late.Quantile(0.5) / 1e9), " p99 ",
                      FormatSeconds(late.Quantile(0.99) / 1e9), " max ",
                      FormatSeconds(late.max / 1e9));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

std::string LinkReportToJson(const LinkReport& report) {
  Json doc = {{"a", report.plan->ends[0].ToString()}, {"b", report.plan->ends[1].ToString()}};
  for (int d = 0; d < 2; ++d) {
    doc[kDirectionNames[d]] = CountersJson(report.counters[d]);
    doc[kDirectionNames[d]]["late_seconds"] = LatencyJson(report.lateness[d]);
  }
  return doc.dump(2) + "\n";
}

}  // namespace uringload::exporters
