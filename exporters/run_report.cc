#include "exporters/run_report.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "exporters/json_text.h"

namespace uringload::exporters {
namespace {

using core::Outcome;
using core::RunStats;

constexpr double kNs = 1e9;

std::string FormatSeconds(double seconds) {
  if (seconds < 1e-3) return absl::StrFormat("%.1fus", seconds * 1e6);
  if (seconds < 1.0) return absl::StrFormat("%.2fms", seconds * 1e3);
  return absl::StrFormat("%.2fs", seconds);
}

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? absl::StrCat(bytes, " B") : absl::StrFormat("%.2f %s", value, units[unit]);
}

double Rate(uint64_t count, absl::Duration d) {
  double seconds = absl::ToDoubleSeconds(d);
  return seconds > 0 ? count / seconds : 0.0;
}

struct Quantiles {
  double mean, min, p50, p90, p99, p999, max;
};

Quantiles LatencyQuantiles(const core::HistogramSnapshot& h) {
  return {.mean = h.Mean() / kNs,
          .min = h.min / kNs,
          .p50 = h.Quantile(0.5) / kNs,
          .p90 = h.Quantile(0.9) / kNs,
          .p99 = h.Quantile(0.99) / kNs,
          .p999 = h.Quantile(0.999) / kNs,
          .max = static_cast<double>(h.max) / kNs};
}

uint64_t Failures(const RunStats& s) { return s.completed() - s.outcome(Outcome::kOk); }

// What a cause slot means: a parse failure's reason for parse_error, an errno for the rest.
std::string CauseText(size_t outcome, size_t cause) {
  if (outcome == size_t(Outcome::kParseError))
    return core::ParseFailureText(static_cast<int>(cause));
  if (cause != 0) return strerror(static_cast<int>(cause));
  return outcome == size_t(Outcome::kTimeout) ? "no complete response in time" : "unknown";
}

std::string ErrorDetails(const RunStats& s) {
  std::string out;
  for (size_t o = 1; o < core::kOutcomeCount; ++o) {
    for (size_t e = 0; e < core::kErrnoSlots; ++e) {
      uint64_t n = s.causes[o][e];
      if (n == 0) continue;
      absl::StrAppend(&out, "  ", core::kOutcomeNames[o], ": ", n, " (", CauseText(o, e), ")\n");
    }
  }
  return out;
}

}  // namespace

std::string FormatRunSummary(const RunReport& report) {
  const RunStats& s = report.result->stats;
  absl::Duration d = report.result->duration;
  Quantiles q = LatencyQuantiles(s.latency);
  std::string out = absl::StrCat("Target:      ", report.target, "\n");
  std::string capped =
      report.requested_concurrency > report.concurrency
          ? absl::StrCat(" (-c ", report.requested_concurrency, ": no more than -n)")
          : "";
  absl::StrAppend(&out, "Plan:        ",
                  report.planned ? absl::StrCat(*report.planned, " requests") : "duration", ", ",
                  report.concurrency, " connections", capped, ", ", report.threads, " threads",
                  report.result->interrupted ? " (interrupted)" : "", "\n");
  absl::StrAppend(
      &out,
      absl::StrFormat("Requests:    %d completed of %d started in %s, %.1f req/s\n", s.completed(),
                      s.started, FormatSeconds(absl::ToDoubleSeconds(d)), Rate(s.completed(), d)));
  if (s.latency.count == 0) {
    absl::StrAppend(&out, "Latency:     n/a (no ok response)\n");
  } else {
    absl::StrAppend(&out, "Latency:     min ", FormatSeconds(q.min), ", mean ",
                    FormatSeconds(q.mean), ", p50 ", FormatSeconds(q.p50), ", p90 ",
                    FormatSeconds(q.p90), ", p99 ", FormatSeconds(q.p99), ", p99.9 ",
                    FormatSeconds(q.p999), ", max ", FormatSeconds(q.max), "\n");
  }
  absl::StrAppend(&out, "Outcomes:   ");
  for (size_t o = 0; o < core::kOutcomeCount; ++o) {
    absl::StrAppend(&out, " ", core::kOutcomeNames[o], " ", s.outcomes[o]);
  }
  absl::StrAppend(&out, "\nStatus:     ");
  bool any_status = false;
  for (size_t code = 0; code < s.status_codes.size(); ++code) {
    if (s.status_codes[code] == 0) continue;
    absl::StrAppend(&out, " ", code, ": ", s.status_codes[code]);
    any_status = true;
  }
  if (!any_status) absl::StrAppend(&out, " none");
  absl::StrAppend(&out, "\nBytes:       sent ", FormatBytes(s.bytes_sent), ", received ",
                  FormatBytes(s.bytes_received), "\n");
  absl::StrAppend(&out, "Connections: opened ", s.connections_opened, ", peak ", s.connections_peak,
                  ", ramp ", FormatSeconds(s.ramp_ns / kNs), "\n");
  if (Failures(s) > 0) absl::StrAppend(&out, "Errors:\n", ErrorDetails(s));
  return out;
}

std::string RunResultToJson(const RunReport& report) {
  const RunStats& s = report.result->stats;
  absl::Duration d = report.result->duration;
  Json outcomes = Json::object();
  for (size_t o = 0; o < core::kOutcomeCount; ++o) outcomes[core::kOutcomeNames[o]] = s.outcomes[o];
  Json status_codes = Json::object();
  for (size_t code = 0; code < s.status_codes.size(); ++code) {
    if (s.status_codes[code] > 0) status_codes[std::to_string(code)] = s.status_codes[code];
  }
  // Without an ok response there is no latency to report: null, not zero.
  Json latency = nullptr;
  if (s.latency.count > 0) {
    Quantiles q = LatencyQuantiles(s.latency);
    latency = {{"mean", q.mean}, {"min", q.min},   {"p50", q.p50}, {"p90", q.p90},
               {"p99", q.p99},   {"p999", q.p999}, {"max", q.max}};
  }
  Json errors = Json::array();
  for (size_t o = 1; o < core::kOutcomeCount; ++o) {
    for (size_t e = 0; e < core::kErrnoSlots; ++e) {
      if (s.causes[o][e] == 0) continue;
      errors.push_back(
          {{"outcome", core::kOutcomeNames[o]},
           {"errno", o == size_t(Outcome::kParseError) ? 0 : e},
           {"message", o == size_t(Outcome::kParseError) || e != 0 ? CauseText(o, e) : ""},
           {"count", s.causes[o][e]}});
    }
  }
  Json doc = {
      {"target", report.target},
      {"concurrency", report.concurrency},
      {"threads", report.threads},
      {"interrupted", report.result->interrupted},
      {"requests",
       {{"planned", report.planned ? Json(*report.planned) : Json(nullptr)},
        {"started", s.started},
        {"completed", s.completed()}}},
      {"outcomes", outcomes},
      {"status_codes", status_codes},
      {"duration_seconds", absl::ToDoubleSeconds(d)},
      {"requests_per_second", Rate(s.completed(), d)},
      {"latency_seconds", latency},
      {"bytes", {{"sent", s.bytes_sent}, {"received", s.bytes_received}}},
      {"connections",
       {{"opened", s.connections_opened},
        {"peak", s.connections_peak},
        {"ramp_seconds", s.ramp_ns / kNs}}},
      {"errors", errors},
  };
  return DumpJson(doc);
}

std::string FormatProgress(const RunStats& s, absl::Duration elapsed,
                           std::optional<uint64_t> planned) {
  std::string done = planned ? absl::StrFormat("%d/%d (%.1f%%)", s.completed(), *planned,
                                               100.0 * s.completed() / *planned)
                             : absl::StrCat(s.completed());
  return absl::StrFormat("[%7.1fs] %s  %.0f req/s  in flight %d  failed %d",
                         absl::ToDoubleSeconds(elapsed), done, Rate(s.completed(), elapsed),
                         s.in_flight(), Failures(s));
}

}  // namespace uringload::exporters
