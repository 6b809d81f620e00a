// ResponseParser: llhttp in response mode, stopping at each message boundary so a connection
// knows exactly where one response ends. Skips 1xx interim responses; no body for HEAD, 204
// or 304. Header blocks over MessageFeeder::kMaxHeaderBytes are an error.
#pragma once

#include <cstddef>
#include <string_view>

#include "proto/message_feeder.h"

namespace uringload::proto {

class ResponseParser : public MessageFeeder {
 public:
  ResponseParser();

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

 private:
  static int OnMessageBegin(llhttp_t* parser);
  static int OnHeadersComplete(llhttp_t* parser);
  static int OnMessageComplete(llhttp_t* parser);
  static const llhttp_settings_t& Settings();

  int status_code_ = 0;
  bool head_request_ = false;
  bool keep_alive_ = false;
  bool started_ = false;
};

}  // namespace uringload::proto
