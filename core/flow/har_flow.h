// HarToFlow: a browser's HAR export (HTTP Archive 1.2, the "Save all as HAR" of DevTools)
// turned into a flow file: each entry a step with its method, URL, headers, body and the status
// it got as its expect. A value a request carries that an earlier answer gave (a token in a
// JSON body, a header) becomes an extraction at that answer and a {variable} where it is used;
// cookies an earlier answer set are left to the user's jar, the others are sent as they were.
// Accept-Encoding is dropped (bodies are read as they arrive, not decompressed), and so are the
// headers the client sets itself (Host, Content-Length, Connection, HTTP/2 pseudo-headers).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace uringload::core {

// Which of a session's origins become steps: those named ("https://shop.test"), or every one;
// by default the first request's alone (a recorded session also reaches third parties, which a
// load test must not load unasked).
struct HarOrigins {
  std::vector<std::string> keep;
  bool all = false;
};

// The YAML flow for the HAR document `har` (`name` names it in errors): the requests to the
// origins `origins` keeps become its steps (a user of the flow holds a connection per origin);
// the others are skipped, each named in a comment, and `note` (if given) says so when the
// session spans several.
absl::StatusOr<std::string> HarToFlow(std::string_view har, std::string_view name,
                                      const HarOrigins& origins = {}, std::string* note = nullptr);

}  // namespace uringload::core
