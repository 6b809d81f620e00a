// har::ReadEntries: what a browser's HAR export (HTTP Archive 1.2) recorded, read for har2flow:
// each entry's request (method, URL, headers, body) and response (status, headers, body); the
// entries that are no request of the application (a proxy tunnel, a CORS preflight, a scheme
// other than http(s), no response) and those to origins not kept, skipped and named; every
// origin of the session with its count of requests.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/flow/har_flow.h"

namespace uringload::core::har {

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

struct Entries {
  std::vector<Entry> requests;
  std::vector<std::string> skipped;  // "log.entries[3]: CONNECT host:443: why".
  std::vector<std::string> kept;     // The origins the requests go to.
  // Every origin of the application's requests, in order of first use, with their requests.
  std::vector<std::pair<std::string, size_t>> origins;
};

// The entries of the HAR document `har` (`name` names it in errors), those to the origins
// `origins` keeps as requests; an error when it is no HAR, an entry lacks what HAR 1.2
// requires, or no request is kept.
absl::StatusOr<Entries> ReadEntries(std::string_view har, std::string_view name,
                                    const HarOrigins& origins);

// "https://a.test:8443" of a URL: its scheme and authority in lower case, without a default
// port.
std::string OriginOf(std::string_view url);

std::string Lower(std::string_view s);

}  // namespace uringload::core::har
