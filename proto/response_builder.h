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

// The interim response to `Expect: 100-continue` (RFC 9110 15.2.1).
inline constexpr std::string_view kContinueResponse = "HTTP/1.1 100 Continue\r\n\r\n";
// Answers to requests the server cannot parse; the connection closes after them.
inline constexpr std::string_view kBadRequestResponse =
    "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
inline constexpr std::string_view kHeadersTooLargeResponse =
    "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n"
    "Connection: close\r\n\r\n";

// What serve echoes over HTTP/2 and HTTP/3: the last segment of the path, without the query,
// at most `max` bytes (RequestParser keeps the same over HTTP/1.1).
std::string_view EchoedSegment(std::string_view path, size_t max);

// A response no HTTP parser accepts: for fault injection.
inline constexpr std::string_view kMalformedResponse = "HTTP/1.1 2x0 NOT HTTP\r\n\r\n";

}  // namespace uringload::proto
