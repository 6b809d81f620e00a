#include "core/run/replay_file.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "net/base/absl_view.h"

namespace uringload::core {
namespace {

using Json = nlohmann::json;

// An absolute URL's path and query ("/" if it has none); a path as it is.
std::string TargetOf(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  size_t path = url.find('/', scheme + 3);
  return path == std::string_view::npos ? "/" : std::string(url.substr(path));
}

// `host - user [10/Oct/2000:13:55:36 -0700] "GET /a?b HTTP/1.1" 200 2326 ...`.
absl::Status CombinedLine(std::string_view line, absl::Time* time, std::string* method,
                          std::string* target) {
  size_t open = line.find('[');
  size_t close = line.find(']', open);
  if (open == std::string_view::npos || close == std::string_view::npos) {
    return absl::InvalidArgumentError("no [time] (combined log format)");
  }
  std::string error;
  if (!absl::ParseTime("%d/%b/%Y:%H:%M:%E*S %z", AbslView(line.substr(open + 1, close - open - 1)),
                       time, &error)) {
    return absl::InvalidArgumentError(absl::StrCat("bad time: ", error));
  }
  size_t quote = line.find('"', close);
  size_t end = quote == std::string_view::npos ? quote : line.find('"', quote + 1);
  if (end == std::string_view::npos) {
    return absl::InvalidArgumentError("no \"METHOD PATH PROTOCOL\" request");
  }
  std::string_view request = line.substr(quote + 1, end - quote - 1);
  size_t space = request.find(' ');
  size_t second = space == std::string_view::npos ? space : request.find(' ', space + 1);
  if (space == std::string_view::npos || space == 0) {
    return absl::InvalidArgumentError("no \"METHOD PATH PROTOCOL\" request");
  }
  *method = std::string(request.substr(0, space));
  *target = TargetOf(request.substr(
      space + 1, second == std::string_view::npos ? std::string_view::npos : second - space - 1));
  if (target->empty() || (*target)[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat("the path '", *target, "' is not absolute"));
  }
  return absl::OkStatus();
}

absl::Status NdjsonLine(std::string_view line, absl::Time* time, std::string* method,
                        std::string* target) {
  Json j = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return absl::InvalidArgumentError("not a JSON object");
  if (!j.contains("timestamp")) return absl::InvalidArgumentError("no \"timestamp\"");
  const Json& t = j["timestamp"];
  if (t.is_number()) {
    *time = absl::FromUnixNanos(static_cast<int64_t>(std::llround(t.get<double>() * 1e9)));
  } else if (t.is_string()) {
    std::string error;
    if (!absl::ParseTime(absl::RFC3339_full, t.get<std::string>(), time, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("bad \"timestamp\": ", error));
    }
  } else {
    return absl::InvalidArgumentError("\"timestamp\" is neither RFC 3339 text nor a number");
  }
  *method =
      j.contains("method") && j["method"].is_string() ? j["method"].get<std::string>() : "GET";
  if (j.contains("path") && j["path"].is_string()) {
    *target = j["path"].get<std::string>();
  } else if (j.contains("url") && j["url"].is_string()) {
    *target = TargetOf(j["url"].get<std::string>());
  } else {
    return absl::InvalidArgumentError("no \"path\" or \"url\"");
  }
  if (target->empty() || (*target)[0] != '/') {
    return absl::InvalidArgumentError(absl::StrCat("the path '", *target, "' is not absolute"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<ReplayLine>> ParseReplayFile(std::string_view text,
                                                        std::string_view path) {
  std::vector<ReplayLine> lines;
  std::vector<absl::Time> times;
  int number = 0;
  bool ndjson = false;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (lines.empty()) ndjson = line.find_first_not_of(" \t") == line.find('{');
    ReplayLine r{.line = number, .offset_ns = 0, .method = {}, .target = {}};
    absl::Time time;
    absl::Status s = ndjson ? NdjsonLine(line, &time, &r.method, &r.target)
                            : CombinedLine(line, &time, &r.method, &r.target);
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(AbslView(path), ":", number, ": ", s.message()));
    }
    lines.push_back(std::move(r));
    times.push_back(time);
  }
  if (lines.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(AbslView(path), ": no request to replay"));
  }
  absl::Time first = *std::min_element(times.begin(), times.end());
  for (size_t k = 0; k < lines.size(); ++k) {
    lines[k].offset_ns = absl::ToInt64Nanoseconds(times[k] - first);
  }
  std::stable_sort(lines.begin(), lines.end(), [](const ReplayLine& a, const ReplayLine& b) {
    return a.offset_ns < b.offset_ns;
  });
  return lines;
}

absl::StatusOr<double> ParseReplaySpeed(std::string_view text) {
  std::string_view number = text;
  if (!number.empty() && (number.back() == 'x' || number.back() == 'X')) number.remove_suffix(1);
  double speed = 0;
  if (!absl::SimpleAtod(AbslView(number), &speed) || !(speed > 0) || speed > 1e6) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--replay-speed must be a factor above 0 such as 2x or 0.5x, got '", AbslView(text), "'"));
  }
  return speed;
}

}  // namespace uringload::core
