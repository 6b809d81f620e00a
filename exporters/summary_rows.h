// The text summary's lines that the counter and histogram tables make (core/run/run_counters.h,
// core/run/run_histograms.h): a row given a summary phrase or label is shown with no other
// edit; and --llm's lines, built on them.
#pragma once

#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "core/run/run_stats.h"

namespace uringload::exporters {

// `title` and the summary phrases of the counter rows kept in JSON object `object`, each
// "<value> <phrase>" when not 0; nothing when all are 0.
void AppendCounterLine(std::string_view title, std::string_view object, const core::RunStats& s,
                       std::string* out);
// A line per histogram row with a summary label and a value: "<label> <quantiles>  (<note>)".
void AppendHistogramLines(const core::RunStats& s, std::string* out);
// --llm: the answers' counters, their tokens per second over `measured` and the goodput.
void AppendLlm(const core::RunStats& s, absl::Duration measured, std::string* out);

}  // namespace uringload::exporters
