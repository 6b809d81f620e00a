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

#include "absl/status/statusor.h"

namespace uringload::core {

// The YAML flow for the HAR document `har` (`name` names it in errors). A flow runs against one
// origin: the requests to `origin` ("https://shop.test"; empty: the first request's) become its
// steps, the others are skipped, each named in a comment, and `note` (if given) says so when
// the session spans several.
absl::StatusOr<std::string> HarToFlow(std::string_view har, std::string_view name,
                                      std::string_view origin = {}, std::string* note = nullptr);

}  // namespace uringload::core
