#include "proto/response_builder.h"

#include <charconv>
#include <cstring>

namespace uringload::proto {
namespace {

std::string_view Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Status";
  }
}

char* Append(char* out, std::string_view text) {
  std::memcpy(out, text.data(), text.size());
  return out + text.size();
}

}  // namespace

size_t WriteResponse(std::span<char> out, int status, bool keep_alive, std::string_view body) {
  char* p = out.data();
  p = Append(p, "HTTP/1.1 ");
  p = std::to_chars(p, p + 3, status).ptr;
  p = Append(p, " ");
  p = Append(p, Reason(status));
  p = Append(p, "\r\nContent-Length: ");
  p = std::to_chars(p, p + 20, body.size()).ptr;
  p = Append(p,
             keep_alive ? "\r\nConnection: keep-alive\r\n\r\n" : "\r\nConnection: close\r\n\r\n");
  p = Append(p, body);
  return static_cast<size_t>(p - out.data());
}

std::string_view EchoedSegment(std::string_view path, size_t max) {
  path = path.substr(0, path.find_first_of("?#"));
  size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  return path.substr(0, max);
}

std::string BuildResponse(int status, bool keep_alive, std::string_view body) {
  std::string out(kMaxResponseHead + body.size(), '\0');
  out.resize(WriteResponse(out, status, keep_alive, body));
  return out;
}

}  // namespace uringload::proto
