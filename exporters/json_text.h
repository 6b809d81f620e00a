// JSON documents of uringload (run results, serve summaries) are built with nlohmann::json
// (Debian's nlohmann-json3-dev) and written by DumpJson: keys in the order they were added,
// two-space indents, and always valid UTF-8: bytes from the command line or the network
// that are not UTF-8 (a raw 0xff in a URL) become U+FFFD instead of breaking the file.
#pragma once

#include <string>

#include "core/latency_histogram.h"
#include "exporters/report_format.h"
#include "nlohmann/json.hpp"

namespace uringload::exporters {

using Json = nlohmann::ordered_json;

inline std::string DumpJson(const Json& document) {
  return document.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

// A histogram's quantiles in seconds ({mean, stddev, min, p50, ..., p999, max}); null when
// it is empty: no latency is not a zero latency.
inline Json LatencyJson(const core::HistogramSnapshot& h) {
  if (h.count == 0) return nullptr;
  Quantiles q = LatencyQuantiles(h);
  return {{"mean", q.mean}, {"stddev", q.stddev}, {"min", q.min}, {"p50", q.p50},   {"p75", q.p75},
          {"p90", q.p90},   {"p95", q.p95},       {"p99", q.p99}, {"p999", q.p999}, {"max", q.max}};
}

}  // namespace uringload::exporters
