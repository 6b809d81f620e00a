#include "exporters/serve_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/serve/server_counters.h"
#include "exporters/counter_json.h"
#include "exporters/json_text.h"

namespace uringload::exporters {

std::string ListenSummary(const core::ServePlan& plan) {
  std::string out;
  for (const net::SocketAddress& address : plan.listen) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", address.ToString());
  }
  if (plan.http3) absl::StrAppend(&out, " (UDP, HTTP/3)");
  return out;
}

std::string FormatServeSummary(const ServeReport& report) {
  const core::ServerRunStats& s = report.stats;
  std::string out =
      absl::StrCat("Served:      ", ListenSummary(*report.plan), " for ",
                   absl::FormatDuration(absl::Trunc(report.duration, absl::Milliseconds(1))), ", ",
                   report.plan->threads, " threads\n");
  absl::StrAppend(&out, "Connections: accepted ", s.connections_accepted, ", peak ",
                  s.connections_peak, ", refused (table full) ", s.table_full, "\n");
  absl::StrAppend(&out, "Requests:    received ", s.requests_received, ", answered ",
                  s.requests_answered, ", bad ", s.bad_requests, ", pipeline overflow ",
                  s.pipeline_overflow, "\n");
  absl::StrAppend(&out, "Faults:     ");
  for (size_t f = 1; f < core::kFaultKinds; ++f) {
    absl::StrAppend(&out, " ", core::kFaultNames[f], " ", s.faults[f]);
  }
  absl::StrAppend(&out, "\nBytes:       received ", s.bytes_received, ", sent ", s.bytes_sent,
                  "\n");
  return out;
}

std::string ServeReportToJson(const ServeReport& report) {
  const core::ServerRunStats& s = report.stats;
  Json faults = Json::object();
  for (size_t f = 1; f < core::kFaultKinds; ++f) faults[core::kFaultNames[f]] = s.faults[f];
  Json doc = {
      {"listen", ListenSummary(*report.plan)},
      {"threads", report.plan->threads},
      {"duration_seconds", absl::ToDoubleSeconds(report.duration)},
      {"requests", Json::object()},
      {"faults", faults},
      {"connections", Json::object()},
      {"tls", Json::object()},
      {"bytes", Json::object()},
  };
  WriteCounters<core::ServerRunStats>(s, doc, core::kServerCounters);  // Its rows.
  return DumpJson(doc);
}

}  // namespace uringload::exporters
