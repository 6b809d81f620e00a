#include "exporters/timeline_reader.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "exporters/json_text.h"
#include "net/base/absl_view.h"

namespace uringload::exporters {
namespace {

constexpr const char* kLatencyNames[] = {"p50", "p90", "p99", "max"};

bool FromJson(const std::string& line, TimelinePoint* p) {
  Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  try {
    p->t = j.at("t").get<double>();
    p->seconds = j.at("seconds").get<double>();
    for (size_t o = 0; o < core::kOutcomeCount; ++o) {
      p->outcomes[o] = j.at(core::kOutcomeNames[o]).get<uint64_t>();
    }
    for (int i = 0; i < 4; ++i) {
      const Json& v = j.at(kLatencyNames[i]);
      if (!v.is_null()) p->latency[i] = v.get<double>();
    }
    p->in_flight = j.at("in_flight").get<uint64_t>();
    p->connections_open = j.at("connections_open").get<uint64_t>();
  } catch (const Json::exception&) {
    return false;
  }
  return true;
}

// A CSV row under TimelineCsvHeader(): t,seconds,started,completed,<outcomes>,rps,p50,p90,p99,
// max,in_flight,connections_open,run_queue_seconds,throttled_seconds,unread_seconds, then the
// targets' columns (numbers only), if any.
bool FromCsv(const std::string& line, TimelinePoint* p) {
  std::vector<std::string> f = absl::StrSplit(line, ',');
  if (f.size() < 4 + core::kOutcomeCount + 1 + 4 + 2) return false;
  size_t k = 0;
  bool ok = absl::SimpleAtod(f[k++], &p->t) && absl::SimpleAtod(f[k++], &p->seconds);
  k += 2;  // started, completed
  for (size_t o = 0; o < core::kOutcomeCount; ++o)
    ok = ok && absl::SimpleAtoi(f[k++], &p->outcomes[o]);
  ++k;  // rps
  for (int i = 0; i < 4; ++i, ++k) {
    double v = 0;
    if (!f[k].empty() && absl::SimpleAtod(f[k], &v)) p->latency[i] = v;
  }
  ok = ok && absl::SimpleAtoi(f[k++], &p->in_flight) &&
       absl::SimpleAtoi(f[k++], &p->connections_open);
  return ok;
}

}  // namespace

absl::StatusOr<std::vector<TimelinePoint>> ReadTimeline(std::string_view text,
                                                        const std::string& name) {
  std::vector<TimelinePoint> points;
  int number = 0;
  bool csv = false;
  for (absl::string_view view : absl::StrSplit(AbslView(text), '\n')) {
    ++number;
    std::string line(view);
    if (line.empty()) continue;
    if (number == 1 && line.rfind("t,", 0) == 0) {
      csv = true;  // The header.
      continue;
    }
    TimelinePoint p;
    if (!(csv ? FromCsv(line, &p) : FromJson(line, &p))) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ":", number, ": not a uringload --timeline record"));
    }
    points.push_back(p);
  }
  return points;
}

}  // namespace uringload::exporters
