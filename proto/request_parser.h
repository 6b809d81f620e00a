// RequestParser: llhttp in request mode for `uringload serve`. Stops after each complete
// request so pipelined requests are answered one by one, in order, and keeps the few facts
// a response needs: keep-alive and the last path segment (the echo body).
#pragma once

#include <cstddef>
#include <string_view>

#include "llhttp.h"

namespace uringload::proto {

class RequestParser {
 public:
  static constexpr size_t kMaxEcho = 32;  // Bytes of the last path segment kept for the echo.
  static constexpr size_t kMaxHeaderBytes = 64 * 1024;

  enum class State { kNeedMore, kComplete, kError };
  struct Result {
    State state;
    size_t consumed;
  };

  RequestParser();
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Starts a new connection.
  void Reset();
  // Feeds bytes; stops right after a complete request. Call again with the rest.
  Result Feed(std::string_view data);

  // Facts of the request just completed.
  bool keep_alive() const { return keep_alive_; }
  std::string_view last_segment() const { return {echo_, echo_size_}; }
  const char* error() const { return error_; }

 private:
  static int OnMessageBegin(llhttp_t* parser);
  static int OnUrl(llhttp_t* parser, const char* at, size_t length);
  static int OnHeadersComplete(llhttp_t* parser);
  static int OnMessageComplete(llhttp_t* parser);
  static const llhttp_settings_t& Settings();

  llhttp_t parser_;
  size_t header_bytes_ = 0;
  const char* error_ = nullptr;
  char echo_[kMaxEcho];
  uint8_t echo_size_ = 0;
  bool url_done_ = false;  // Past '?' or '#': the rest of the URL is not the path.
  bool headers_complete_ = false;
  bool keep_alive_ = false;
  bool complete_ = false;
};

}  // namespace uringload::proto
