#include "exporters/timeline.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "core/run/run_histograms.h"
#include "exporters/json_text.h"
#include "net/base/absl_view.h"

namespace uringload::exporters {
namespace {

constexpr const char* kQuantileNames[] = {"p50", "p90", "p99", "max"};

using Outcomes = std::array<uint64_t, core::kOutcomeCount>;

// `outcomes` and `latency` less what `before` had (none: nothing before).
TimelineCounts CountsSince(const Outcomes& outcomes, const core::HistogramSnapshot& latency,
                           const Outcomes* before_outcomes,
                           const core::HistogramSnapshot* before_latency) {
  TimelineCounts counts;
  counts.outcomes = outcomes;
  if (before_outcomes != nullptr) {
    for (size_t o = 0; o < core::kOutcomeCount; ++o) counts.outcomes[o] -= (*before_outcomes)[o];
  }
  counts.latency = before_latency == nullptr ? latency : latency.Since(*before_latency);
  return counts;
}

// p50, p90, p99 and max in seconds; none when nothing was ok.
std::array<std::optional<double>, 4> Quantiles(const core::HistogramSnapshot& h) {
  if (h.count == 0) return {};
  return {h.Quantile(0.5) / 1e9, h.Quantile(0.9) / 1e9, h.Quantile(0.99) / 1e9, h.max / 1e9};
}

// The mean latency of the ok requests, in seconds; none when there were none. Exact: from the
// histogram's sum, not its buckets.
std::optional<double> Mean(const core::HistogramSnapshot& h) {
  if (h.count == 0) return std::nullopt;
  return h.Mean() / 1e9;
}

std::string MeanCell(const TimelineCounts& counts) {
  std::optional<double> mean = Mean(counts.latency);
  return mean ? absl::StrFormat(",%.9f", *mean) : ",";
}

double Rate(const TimelineCounts& counts, double seconds) {
  return seconds > 0 ? counts.completed() / seconds : 0;
}

// completed, one count per outcome, rps, p50, p90, p99, max.
void AppendCsvCounts(const TimelineCounts& counts, double seconds, std::string* line) {
  absl::StrAppend(line, ",", counts.completed());
  for (uint64_t n : counts.outcomes) absl::StrAppend(line, ",", n);
  absl::StrAppend(line, absl::StrFormat(",%.3f", Rate(counts, seconds)));
  for (const std::optional<double>& v : Quantiles(counts.latency)) {
    absl::StrAppend(line, ",", v ? absl::StrFormat("%.9f", *v) : "");
  }
}

void AddJsonCounts(const TimelineCounts& counts, double seconds, Json* j) {
  (*j)["completed"] = counts.completed();
  for (size_t o = 0; o < core::kOutcomeCount; ++o) {
    (*j)[core::kOutcomeNames[o]] = counts.outcomes[o];
  }
  (*j)["rps"] = Rate(counts, seconds);
  std::array<std::optional<double>, 4> q = Quantiles(counts.latency);
  for (int i = 0; i < 4; ++i) (*j)[kQuantileNames[i]] = q[i] ? Json(*q[i]) : Json(nullptr);
  std::optional<double> mean = Mean(counts.latency);
  (*j)["mean"] = mean ? Json(*mean) : Json(nullptr);
}

// How many of the table's histograms are in the timeline.
size_t TimelineHistograms() {
  size_t n = 0;
  for (const core::HistogramRow& h : core::kRunHistograms) n += h.timeline ? 1 : 0;
  return n;
}

// A header field, quoted (RFC 4180) when a target's name holds a comma or a quote.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\"", "\"\""}}), "\"");
}

}  // namespace

uint64_t TimelineCounts::completed() const {
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
  row.counts = CountsSince(after.outcomes, after.latency, &before.outcomes, &before.latency);
  row.in_flight = after.in_flight();
  row.connections_open = after.connections_open;
  auto since = [](uint64_t now, uint64_t then) { return now > then ? (now - then) / 1e9 : 0.0; };
  row.run_queue_seconds = since(after.generator.run_queue_ns, before.generator.run_queue_ns);
  row.throttled_seconds = since(after.generator.throttled_ns, before.generator.throttled_ns);
  row.unread_seconds = since(after.generator.unread_ns, before.generator.unread_ns);
  for (const core::HistogramRow& h : core::kRunHistograms) {
    if (!h.timeline) continue;
    core::HistogramSnapshot in = (after.*h.member).Since(before.*h.member);
    if (in.count == 0) {
      row.histograms.push_back({});
    } else {
      row.histograms.push_back({in.Quantile(0.5) / 1e9, in.Quantile(0.99) / 1e9});
    }
  }
  for (size_t k = 0; k < after.by_target.size(); ++k) {
    const core::TargetStats& now = after.by_target[k];
    if (k < before.by_target.size()) {
      const core::TargetStats& then = before.by_target[k];
      row.by_target.push_back(
          CountsSince(now.outcomes, now.latency, &then.outcomes, &then.latency));
    } else {
      row.by_target.push_back(CountsSince(now.outcomes, now.latency, nullptr, nullptr));
    }
  }
  return row;
}

std::string TimelineCsvHeader(std::span<const std::string> target_names) {
  std::string header = "t,seconds,started,completed";
  for (const char* name : core::kOutcomeNames) absl::StrAppend(&header, ",", name);
  absl::StrAppend(&header,
                  ",rps,p50,p90,p99,max,in_flight,connections_open,run_queue_seconds,"
                  "throttled_seconds,unread_seconds,mean");
  for (const core::HistogramRow& h : core::kRunHistograms) {
    if (h.timeline)
      absl::StrAppend(&header, ",", AbslView(h.measure), "_p50,", AbslView(h.measure), "_p99");
  }
  for (const std::string& target : target_names) {
    absl::StrAppend(&header, ",", CsvField(target + ":completed"));
    for (const char* name : core::kOutcomeNames) {
      absl::StrAppend(&header, ",", CsvField(absl::StrCat(target, ":", name)));
    }
    for (const char* name : {"rps", "p50", "p90", "p99", "max", "mean"}) {
      absl::StrAppend(&header, ",", CsvField(absl::StrCat(target, ":", name)));
    }
  }
  return header + "\n";
}

std::string FormatTimelineRow(const TimelineRow& row, bool csv,
                              std::span<const std::string> target_names) {
  size_t targets = std::min(target_names.size(), row.by_target.size());
  if (csv) {
    std::string line = absl::StrFormat("%.3f,%.3f,%d", row.t, row.seconds, row.started);
    AppendCsvCounts(row.counts, row.seconds, &line);
    absl::StrAppend(&line, ",", row.in_flight, ",", row.connections_open,
                    absl::StrFormat(",%.6f,%.6f,%.6f", row.run_queue_seconds, row.throttled_seconds,
                                    row.unread_seconds),
                    MeanCell(row.counts));
    for (size_t i = 0; i < TimelineHistograms(); ++i) {
      for (int q = 0; q < 2; ++q) {
        const std::optional<double>* v =
            i < row.histograms.size() ? &row.histograms[i][q] : nullptr;
        absl::StrAppend(&line, ",", v != nullptr && *v ? absl::StrFormat("%.9f", **v) : "");
      }
    }
    for (size_t k = 0; k < targets; ++k) {
      AppendCsvCounts(row.by_target[k], row.seconds, &line);
      absl::StrAppend(&line, MeanCell(row.by_target[k]));
    }
    // A run that tracks targets writes their columns even before its first snapshot has them.
    for (size_t k = targets; k < target_names.size(); ++k) {
      AppendCsvCounts(TimelineCounts{}, row.seconds, &line);
      absl::StrAppend(&line, MeanCell(TimelineCounts{}));
    }
    return line + "\n";
  }
  Json j = {{"t", row.t}, {"seconds", row.seconds}, {"started", row.started}};
  AddJsonCounts(row.counts, row.seconds, &j);
  j["in_flight"] = row.in_flight;
  j["connections_open"] = row.connections_open;
  j["run_queue_seconds"] = row.run_queue_seconds;
  j["throttled_seconds"] = row.throttled_seconds;
  j["unread_seconds"] = row.unread_seconds;
  size_t i = 0;
  for (const core::HistogramRow& h : core::kRunHistograms) {
    if (!h.timeline) continue;
    for (int q = 0; q < 2; ++q) {
      const std::optional<double>* v = i < row.histograms.size() ? &row.histograms[i][q] : nullptr;
      j[absl::StrCat(AbslView(h.measure), q == 0 ? "_p50" : "_p99")] =
          v != nullptr && *v ? Json(**v) : Json(nullptr);
    }
    ++i;
  }
  if (!target_names.empty()) {
    Json by_target = Json::array();
    for (size_t k = 0; k < target_names.size(); ++k) {
      Json target = {{"name", target_names[k]}};
      AddJsonCounts(k < targets ? row.by_target[k] : TimelineCounts{}, row.seconds, &target);
      by_target.push_back(std::move(target));
    }
    j["by_target"] = std::move(by_target);
  }
  return j.dump() + "\n";
}

}  // namespace uringload::exporters
