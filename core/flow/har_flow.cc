#include "core/flow/har_flow.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "net/base/absl_view.h"
#include "net/base/status_macros.h"
#include "proto/text_template.h"

namespace uringload::core {
namespace {

using Json = nlohmann::json;

// A value shorter than this is too common to tell where it came from ("1", "true", "en").
constexpr size_t kMinTracedValue = 8;

struct Header {
  std::string name;
  std::string value;
};

struct Entry {
  std::string method;
  std::string url;
  std::vector<Header> headers;
  std::string body;
  int status = 0;
  std::vector<Header> response_headers;
  std::string response_body;
};

// Where a value came from: the step whose answer held it, and how to take it from there.
struct Source {
  size_t step = 0;
  std::string extraction;  // json:/pointer, header:Name or header:Name:REGEX.
  std::string variable;
};

std::string Lower(std::string_view s) { return absl::AsciiStrToLower(AbslView(s)); }

// Headers a flow's request never carries as they were recorded.
bool Dropped(const std::string& lower_name) {
  static const std::set<std::string> kDropped = {
      "host", "content-length",  "connection", "keep-alive",       "transfer-encoding", "upgrade",
      "te",   "accept-encoding", "cookie",     "proxy-connection", "http2-settings"};
  return lower_name.empty() || lower_name[0] == ':' || kDropped.contains(lower_name);
}

// Response headers whose values are about the answer itself, never a credential.
bool Descriptive(const std::string& lower_name) {
  static const std::set<std::string> kDescriptive = {"date",
                                                     "server",
                                                     "content-type",
                                                     "content-length",
                                                     "set-cookie",
                                                     "connection",
                                                     "keep-alive",
                                                     "vary",
                                                     "etag",
                                                     "last-modified",
                                                     "cache-control",
                                                     "expires",
                                                     "age",
                                                     "transfer-encoding",
                                                     "content-encoding",
                                                     "accept-ranges"};
  return kDescriptive.contains(lower_name);
}

// Letters, digits and _ from `text` (a JSON key or a header name), as a variable's name.
std::string VariableName(std::string_view text) {
  std::string name;
  for (char c : text) {
    if (absl::ascii_isalnum(c) || c == '_') {
      name.push_back(c);
    } else if (c == '-' && !name.empty()) {
      name.push_back('_');
    }
  }
  if (name.empty() || absl::ascii_isdigit(name[0])) name = "v" + name;
  return name;
}

std::string PointerToken(std::string_view key) {
  std::string token;
  for (char c : key) {
    if (c == '~') {
      token += "~0";
    } else if (c == '/') {
      token += "~1";
    } else {
      token.push_back(c);
    }
  }
  return token;
}

// Every string and number of `j` long enough to trace, with its pointer (the first of each).
void Scalars(const Json& j, const std::string& pointer, std::string_view last_key,
             std::vector<std::pair<std::string, std::pair<std::string, std::string>>>* out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      Scalars(value, pointer + "/" + PointerToken(key), key, out);
    }
  } else if (j.is_array()) {
    for (size_t k = 0; k < j.size(); ++k) {
      Scalars(j[k], pointer + "/" + std::to_string(k), last_key, out);
    }
  } else if (j.is_string() || j.is_number()) {
    std::string text = j.is_string() ? j.get<std::string>() : j.dump();
    if (text.size() >= kMinTracedValue) {
      out->push_back({text, {pointer, std::string(last_key.empty() ? "value" : last_key)}});
    }
  }
}

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

// `text` as a template in which each traced value (longest first) becomes its variable.
std::string Traced(std::string_view text, const std::vector<std::pair<std::string, size_t>>& values,
                   const std::vector<Source>& sources, std::set<size_t>* used) {
  std::string out;
  size_t literal_start = 0;
  size_t at = 0;
  while (at < text.size()) {
    auto match = std::find_if(values.begin(), values.end(), [&](const auto& v) {
      return text.substr(at, v.first.size()) == v.first;
    });
    if (match == values.end()) {
      ++at;
      continue;
    }
    out += proto::TextTemplate::Escape(text.substr(literal_start, at - literal_start));
    absl::StrAppend(&out, "{", sources[match->second].variable, "}");
    used->insert(match->second);
    at += match->first.size();
    literal_start = at;
  }
  return out + proto::TextTemplate::Escape(text.substr(literal_start));
}

// A YAML scalar in single quotes.
std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out.push_back(c);
    if (c == '\'') out.push_back('\'');
  }
  return out + "'";
}

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

// "https://a.test:8443" of a URL: its scheme and authority in lower case, without a default
// port.
std::string Origin(std::string_view url) {
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

struct Entries {
  std::vector<Entry> requests;
  std::vector<std::string> skipped;  // "log.entries[3]: CONNECT host:443: why".
  std::vector<std::string> kept;     // The origins the requests go to.
  // Every origin of the application's requests, in order of first use, with their requests.
  std::vector<std::pair<std::string, size_t>> origins;
};

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
  for (const std::string& o : wanted.keep) out.kept.push_back(Origin(o));
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
      std::string origin = Origin(entry.url);
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

// A step's name: the last segment of its path (letters, digits, '_', '-', '.'), unique.
std::string StepName(std::string_view url, std::set<std::string>* taken) {
  size_t scheme = url.find("://");
  size_t path_start = url.find('/', scheme == std::string_view::npos ? 0 : scheme + 3);
  std::string_view path =
      path_start == std::string_view::npos ? std::string_view() : url.substr(path_start);
  path = path.substr(0, path.find('?'));
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  std::string_view segment = path.substr(path.rfind('/') + 1);
  std::string name;
  for (char c : segment) {
    if (IsNameChar(c) || c == '-' || c == '.') name.push_back(c);
  }
  if (name.empty()) name = "root";
  std::string unique = name;
  for (int k = 2; taken->contains(unique); ++k) unique = absl::StrCat(name, "-", k);
  taken->insert(unique);
  return unique;
}

}  // namespace

absl::StatusOr<std::string> HarToFlow(std::string_view har, std::string_view name,
                                      const HarOrigins& origins, std::string* note) {
  URINGLOAD_ASSIGN_OR_RETURN(Entries read, ReadEntries(har, name, origins));
  if (note != nullptr && read.origins.size() > 1) {
    size_t others = 0;
    for (const auto& [o, n] : read.origins) {
      if (std::find(read.kept.begin(), read.kept.end(), o) == read.kept.end()) others += n;
    }
    *note = absl::StrCat("the session spans ", read.origins.size(), " origins: the flow keeps ",
                         absl::StrJoin(read.kept, ", "), " (", read.requests.size(),
                         " requests, a connection per origin for each user)");
    if (others > 0) {
      absl::StrAppend(note, " and skips the ", others,
                      " to the others, each named in a # skipped comment (--origin ORIGIN keeps "
                      "one more, --all-origins every one)");
    }
  }
  const std::vector<Entry>* entries = &read.requests;
  std::vector<Source> sources;
  std::vector<std::pair<std::string, size_t>> values;  // Traced value, its source; longest first.
  std::set<std::string> variables;
  std::set<std::string> set_cookies;  // Names an earlier answer set.
  std::set<std::string> step_names;
  // The entries that are no request of the application, as comments: what was left out.
  std::string out;
  for (const std::string& skipped : read.skipped)
    absl::StrAppend(&out, "# skipped ", skipped, "\n");
  out += "flow:\n";
  std::vector<std::string> steps;
  std::vector<std::vector<size_t>> extracts(entries->size());
  for (size_t k = 0; k < entries->size(); ++k) {
    const Entry& e = (*entries)[k];
    std::set<size_t> used;
    std::string step = absl::StrCat("  - name: ", StepName(e.url, &step_names), "\n");
    absl::StrAppend(&step,
                    "    request: ", Quote(e.method + " " + Traced(e.url, values, sources, &used)),
                    "\n");
    std::string headers;
    for (const Header& h : e.headers) {
      std::string lower = Lower(h.name);
      if (lower == "cookie") {
        // Cookies no earlier answer set go as they were; the jar sends the others.
        std::string kept;
        for (absl::string_view pair : absl::StrSplit(h.value, ';')) {
          absl::string_view trimmed = absl::StripAsciiWhitespace(pair);
          std::string cookie_name(trimmed.substr(0, trimmed.find('=')));
          if (trimmed.empty() || set_cookies.contains(cookie_name)) continue;
          absl::StrAppend(&kept, kept.empty() ? "" : "; ", trimmed);
        }
        if (!kept.empty()) {
          absl::StrAppend(&headers, "      ", Quote(h.name), ": ",
                          Quote(Traced(kept, values, sources, &used)), "\n");
        }
        continue;
      }
      if (Dropped(lower)) continue;
      absl::StrAppend(&headers, "      ", Quote(h.name), ": ",
                      Quote(Traced(h.value, values, sources, &used)), "\n");
    }
    if (!headers.empty()) absl::StrAppend(&step, "    headers:\n", headers);
    if (!e.body.empty()) {
      absl::StrAppend(&step, "    body: ", Quote(Traced(e.body, values, sources, &used)), "\n");
    }
    if (e.status >= 100 && e.status <= 999) {
      absl::StrAppend(&step, "    expect: {status: ", e.status, "}\n");
    }
    steps.push_back(std::move(step));
    for (size_t source : used) extracts[sources[source].step].push_back(source);
    // What this answer gives the steps after it.
    std::vector<std::pair<std::string, std::pair<std::string, std::string>>> found;
    Json body = Json::parse(e.response_body, nullptr, /*allow_exceptions=*/false);
    if (!body.is_discarded()) Scalars(body, "", "", &found);
    for (const Header& h : e.response_headers) {
      std::string lower = Lower(h.name);
      if (lower == "set-cookie") {
        set_cookies.insert(std::string(absl::StripAsciiWhitespace(
            absl::string_view(h.value).substr(0, absl::string_view(h.value).find('=')))));
      } else if (!Descriptive(lower) && h.value.size() >= kMinTracedValue) {
        // An absolute URL (a Location): its path after the first '/' is the part that varies; a
        // request's URL that carries it keeps its scheme, host, port and that '/' literal, and
        // so stays a URL.
        absl::string_view value(h.value);
        size_t authority = value.find("://");
        size_t path = authority == absl::string_view::npos ? absl::string_view::npos
                                                           : value.find('/', authority + 3);
        if ((absl::StartsWith(value, "http://") || absl::StartsWith(value, "https://")) &&
            path != absl::string_view::npos && value.size() - path - 1 >= kMinTracedValue) {
          found.push_back({std::string(value.substr(path + 1)),
                           {absl::StrCat("header:", h.name, ":^https?://[^/]*/(.*)$"), h.name}});
        } else if (authority == absl::string_view::npos) {
          found.push_back({h.value, {"header:" + h.name, h.name}});
        }
      }
    }
    for (const auto& [value, where] : found) {
      bool known = std::any_of(values.begin(), values.end(),
                               [&value = value](const auto& v) { return v.first == value; });
      if (known) continue;
      std::string variable = VariableName(where.second);
      std::string unique = variable;
      for (int n = 2; variables.contains(unique); ++n) unique = absl::StrCat(variable, n);
      variables.insert(unique);
      std::string extraction =
          absl::StartsWith(where.first, "header:") ? where.first : "json:" + where.first;
      sources.push_back({.step = k, .extraction = extraction, .variable = unique});
      values.push_back({value, sources.size() - 1});
    }
    std::stable_sort(values.begin(), values.end(),
                     [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  }
  for (size_t k = 0; k < steps.size(); ++k) {
    out += steps[k];
    if (extracts[k].empty()) continue;
    std::sort(extracts[k].begin(), extracts[k].end());
    extracts[k].erase(std::unique(extracts[k].begin(), extracts[k].end()), extracts[k].end());
    out += "    extract:\n";
    for (size_t source : extracts[k]) {
      absl::StrAppend(&out, "      ", sources[source].variable, ": ",
                      Quote(sources[source].extraction), "\n");
    }
  }
  return out;
}

}  // namespace uringload::core
