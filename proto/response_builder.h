// Response bytes for `uringload serve`: a status line, Content-Length, an explicit Connection
// header (so HTTP/1.0 clients keep-alive correctly) and the body.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace uringload::proto {

// Largest header block WriteResponse produces (status line, two headers, blank line).
inline constexpr size_t kMaxResponseHead = 128;

// Writes the response into `out` (which must hold kMaxResponseHead + body.size() bytes) and
// returns its size.
size_t WriteResponse(std::span<char> out, int status, bool keep_alive, std::string_view body);
std::string BuildResponse(int status, bool keep_alive, std::string_view body);

// A response no HTTP parser accepts: for fault injection.
inline constexpr std::string_view kMalformedResponse = "HTTP/1.1 2x0 NOT HTTP\r\n\r\n";

}  // namespace uringload::proto
