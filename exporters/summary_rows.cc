#include "exporters/summary_rows.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/run/run_counters.h"
#include "core/run/run_histograms.h"
#include "exporters/report_format.h"
#include "net/base/absl_view.h"

namespace uringload::exporters {

using core::RunStats;

void AppendCounterLine(std::string_view title, std::string_view object, const RunStats& s,
                       std::string* out) {
  std::string line;
  for (const core::CounterRow& row : core::kRunCounters) {
    if (row.object != object || row.summary.empty() || s.*row.member == 0) continue;
    absl::StrAppend(&line, line.empty() ? "" : ", ", s.*row.member, " ", AbslView(row.summary));
  }
  if (!line.empty()) absl::StrAppend(out, AbslView(title), line, "\n");
}

void AppendLlm(const RunStats& s, absl::Duration measured, std::string* out) {
  AppendCounterLine("LLM:         ", "llm", s, out);
  absl::StrAppend(out, absl::StrFormat("Tokens:      %.1f output/s, %.1f total/s (%s)",
                                       Rate(s.llm_output_tokens, measured),
                                       Rate(s.llm_output_tokens + s.llm_input_tokens, measured),
                                       s.llm_usage == s.llm_answers ? "from the usage chunks"
                                       : s.llm_usage == 0           ? "counted deltas"
                                                                    : "usage, else deltas"));
  if (s.completed() > 0) {
    absl::StrAppend(
        out, absl::StrFormat("; goodput %.2f%% of requests", 100.0 * s.llm_good / s.completed()));
  }
  absl::StrAppend(out, "\n");
}

void AppendHistogramLines(const RunStats& s, std::string* out) {
  for (const core::HistogramRow& row : core::kRunHistograms) {
    const core::HistogramSnapshot& h = s.*row.member;
    if (row.summary.empty() || h.count == 0) continue;
    absl::StrAppend(out, absl::StrFormat("%-13s", AbslView(row.summary)), LatencyLine(h), "  (",
                    AbslView(row.note), ")\n");
  }
}

}  // namespace uringload::exporters
