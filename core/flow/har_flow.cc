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
#include "core/flow/har_entries.h"
#include "net/base/absl_view.h"
#include "net/base/status_macros.h"
#include "proto/text_template.h"

namespace uringload::core {
namespace {

using Json = nlohmann::json;
using har::Entries;
using har::Entry;
using har::Header;
using har::Lower;
using har::ReadEntries;

// A value shorter than this is too common to tell where it came from ("1", "true", "en").
constexpr size_t kMinTracedValue = 8;

// Where a value came from: the step whose answer held it, and how to take it from there.
struct Source {
  size_t step = 0;
  std::string extraction;  // json:/pointer, header:Name or header:Name:REGEX.
  std::string variable;
};

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
