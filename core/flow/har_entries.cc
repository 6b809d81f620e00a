#include "core/flow/har_entries.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/base/absl_view.h"

namespace uringload::core::har {
namespace {

using Json = nlohmann::json;

std::vector<Header> Headers(const Json& list) {
  std::vector<Header> headers;
  if (!list.is_array()) return headers;
  for (const Json& h : list) {
    if (h.contains("name") && h.contains("value") && h["name"].is_string() &&
        h["value"].is_string()) {
      headers.push_back({h["name"].get<std::string>(), h["value"].get<std::string>()});
    }
  }
  return headers;
}

// A request the application made, or why the entry is none: a proxy tunnel (CONNECT), a CORS
// preflight the browser sends by itself, a scheme other than http(s), no response recorded.
std::string NotAnApplicationRequest(const Entry& e) {
  if (!absl::StartsWith(e.url, "http://") && !absl::StartsWith(e.url, "https://")) {
    return "not an http:// or https:// URL";
  }
  if (e.method == "CONNECT") return "a proxy tunnel the browser opened, not a request";
  if (e.method == "OPTIONS") {
    for (const Header& h : e.headers) {
      if (Lower(h.name) == "access-control-request-method") {
        return "a CORS preflight the browser sends by itself";
      }
    }
  }
  if (e.status == 0) return "no response was recorded (status 0: blocked or aborted)";
  return "";
}

}  // namespace

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(AbslView(s)); }

std::string OriginOf(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return Lower(url);
  size_t end = url.find_first_of("/?#", scheme + 3);
  std::string origin = Lower(url.substr(0, end));
  // The scheme's own port is no part of it.
  if ((origin.starts_with("http://") && origin.ends_with(":80")) ||
      (origin.starts_with("https://") && origin.ends_with(":443"))) {
    origin.resize(origin.rfind(':'));
  }
  return origin;
}

absl::StatusOr<Entries> ReadEntries(std::string_view har, std::string_view name,
                                    const HarOrigins& wanted) {
  Json doc = Json::parse(har.begin(), har.end(), nullptr, /*allow_exceptions=*/false);
  auto fail = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(AbslView(name), ": ", AbslView(why)));
  };
  if (doc.is_discarded() || !doc.is_object()) return fail("not JSON");
  if (!doc.contains("log") || !doc["log"].contains("entries") ||
      !doc["log"]["entries"].is_array()) {
    return fail("not a HAR file: no log.entries");
  }
  Entries out;
  for (const std::string& o : wanted.keep) out.kept.push_back(OriginOf(o));
  const Json& list = doc["log"]["entries"];
  for (size_t k = 0; k < list.size(); ++k) {
    const Json& e = list[k];
    std::string at = absl::StrCat("log.entries[", k, "]");
    // HAR 1.2 requires both in every entry: a file without them is not one this can replay.
    for (const char* part : {"request", "response"}) {
      if (!e.is_object() || !e.contains(part) || !e[part].is_object()) {
        return fail(absl::StrCat(at, " has no \"", part,
                                 "\" object (HAR 1.2 requires a request and a response in "
                                 "every entry)"));
      }
    }
    const Json& request = e["request"];
    const Json& response = e["response"];
    for (const char* field : {"method", "url"}) {
      if (!request.contains(field) || !request[field].is_string()) {
        return fail(absl::StrCat(at, ".request has no \"", field, "\" string"));
      }
    }
    Entry entry;
    entry.method = request["method"].get<std::string>();
    entry.url = request["url"].get<std::string>();
    entry.headers = Headers(request.value("headers", Json::array()));
    if (request.contains("postData") && request["postData"].contains("text") &&
        request["postData"]["text"].is_string()) {
      entry.body = request["postData"]["text"].get<std::string>();
    }
    entry.status = response.contains("status") && response["status"].is_number_integer()
                       ? response["status"].get<int>()
                       : 0;
    entry.response_headers = Headers(response.value("headers", Json::array()));
    if (response.contains("content") && response["content"].contains("text") &&
        response["content"]["text"].is_string()) {
      entry.response_body = response["content"]["text"].get<std::string>();
    }
    std::string why = NotAnApplicationRequest(entry);
    if (why.empty()) {
      // The origins asked for, every one, or the first request's.
      std::string origin = OriginOf(entry.url);
      auto known = std::find_if(out.origins.begin(), out.origins.end(),
                                [&](const auto& o) { return o.first == origin; });
      if (known == out.origins.end()) {
        out.origins.push_back({origin, 1});
      } else {
        ++known->second;
      }
      bool kept = std::find(out.kept.begin(), out.kept.end(), origin) != out.kept.end();
      if (!kept && (wanted.all || out.kept.empty())) {
        out.kept.push_back(origin);
        kept = true;
      }
      if (!kept) {
        why =
            absl::StrCat("another origin than ", absl::StrJoin(out.kept, ", "),
                         " (har2flow --origin ", origin, " keeps it too, --all-origins every one)");
      }
    }
    if (!why.empty()) {
      std::string url = entry.url.size() > 120 ? entry.url.substr(0, 120) + "..." : entry.url;
      for (char& c : url) {
        if (c == '\n' || c == '\r') c = ' ';
      }
      out.skipped.push_back(absl::StrCat(at, ": ", entry.method, " ", url, ": ", why));
      continue;
    }
    out.requests.push_back(std::move(entry));
  }
  if (out.requests.empty() && !out.origins.empty()) {
    std::string origins;
    for (const auto& [origin, n] : out.origins) {
      absl::StrAppend(&origins, origins.empty() ? "" : ", ", origin, " (", n, ")");
    }
    return fail(absl::StrCat("no request to ", absl::StrJoin(out.kept, ", "),
                             " (the session's origins: ", origins, ")"));
  }
  if (out.requests.empty()) {
    return fail(absl::StrCat("no request of the application in log.entries (", out.skipped.size(),
                             " skipped)"));
  }
  return out;
}

}  // namespace uringload::core::har
