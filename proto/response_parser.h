// ResponseParser: llhttp in response mode, stopping at each message boundary so a connection
// knows exactly where one response ends. Skips 1xx interim responses; no body for HEAD.
#pragma once

#include <cstddef>
#include <string_view>

#include "llhttp.h"

namespace uringload::proto {

class ResponseParser {
 public:
  // Response header blocks larger than this are a parse error (bounded memory and time).
  static constexpr size_t kMaxHeaderBytes = 64 * 1024;

  enum class State { kNeedMore, kComplete, kError };
  struct Result {
    State state;
    size_t consumed;  // Bytes of the input that belong to this response.
  };

  ResponseParser();
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  // Prepares for the response to the next request; `head_request` means no body follows.
  void Start(bool head_request);
  // Feeds bytes of the response; stops right after the message's last byte.
  Result Feed(std::string_view data);
  // The peer closed the connection: completes a body delimited by the close, else kError.
  Result Finish();

  int status_code() const { return status_code_; }
  bool keep_alive() const { return keep_alive_; }
  // True once any byte of the current response arrived.
  bool started() const { return started_; }
  const char* error() const { return error_; }

 private:
  static int OnMessageBegin(llhttp_t* parser);
  static int OnHeadersComplete(llhttp_t* parser);
  static int OnMessageComplete(llhttp_t* parser);
  static const llhttp_settings_t& Settings();
  Result Fail(const char* reason, size_t consumed);

  llhttp_t parser_;
  size_t header_bytes_ = 0;
  const char* error_ = nullptr;
  int status_code_ = 0;
  bool head_request_ = false;
  bool headers_complete_ = false;
  bool keep_alive_ = false;
  bool started_ = false;
  bool complete_ = false;
};

}  // namespace uringload::proto
