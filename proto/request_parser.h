// RequestParser: llhttp in request mode for `uringload serve`. Stops after each complete
// request so pipelined requests are answered one by one, in order, and keeps the few facts
// a response needs: keep-alive, the last path segment (the echo body) and whether the client
// waits for `100 Continue` before it sends the body.
#pragma once

#include <cstddef>
#include <string_view>

#include "proto/message_feeder.h"

namespace uringload::proto {

class RequestParser : public MessageFeeder {
 public:
  static constexpr size_t kMaxEcho = 32;  // Bytes of the last path segment kept for the echo.

  RequestParser();

  // Starts a new connection.
  void Reset();
  // Feeds bytes; stops right after a complete request. Call again with the rest.
  Result Feed(std::string_view data);

  // Facts of the request just completed (or, for expects_continue, whose headers are).
  bool keep_alive() const { return keep_alive_; }
  // A HEAD request: its response has the headers a GET's would, and no body (RFC 9110 9.3.2).
  bool head() const { return head_; }
  std::string_view last_segment() const { return {echo_, echo_size_}; }
  // The headers said `Expect: 100-continue` and a body follows (RFC 9110 10.1.1).
  bool expects_continue() const { return expect_continue_ && headers_complete_ && !complete_; }

 private:
  static int OnMessageBegin(llhttp_t* parser);
  static int OnUrl(llhttp_t* parser, const char* at, size_t length);
  static int OnHeaderField(llhttp_t* parser, const char* at, size_t length);
  static int OnHeaderValue(llhttp_t* parser, const char* at, size_t length);
  static int OnHeadersComplete(llhttp_t* parser);
  static int OnMessageComplete(llhttp_t* parser);
  static const llhttp_settings_t& Settings();

  char echo_[kMaxEcho];
  uint8_t echo_size_ = 0;
  // Matching "Expect: 100-continue" across split callbacks: characters matched so far, or
  // kNoMatch once the current field or value cannot match.
  static constexpr uint8_t kNoMatch = 0xff;
  uint8_t field_match_ = 0;
  uint8_t value_match_ = 0;
  bool in_value_ = false;
  bool url_done_ = false;  // Past '?' or '#': the rest of the URL is not the path.
  bool keep_alive_ = false;
  bool head_ = false;
  bool expect_continue_ = false;
};

}  // namespace uringload::proto
