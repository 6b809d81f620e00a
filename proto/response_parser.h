// ResponseParser: llhttp in response mode, stopping at each message boundary so a connection
// knows exactly where one response ends. Skips 1xx interim responses; no body for HEAD, 204
// or 304. Header blocks over MessageFeeder::kMaxHeaderBytes are an error.
#pragma once

#include <cstddef>
#include <string_view>

#include "proto/body_matcher.h"
#include "proto/message_feeder.h"

namespace uringload::proto {

// Sees a response's headers and body as they are parsed, in the pieces they arrive in (a
// flow's user: its checks and extractions). Begin comes first, again for a real response
// after an interim one.
class ResponseInspector {
 public:
  virtual ~ResponseInspector() = default;
  virtual void OnResponseBegin() = 0;
  virtual void OnHeaderName(std::string_view piece) = 0;
  virtual void OnHeaderValue(std::string_view piece) = 0;
  virtual void OnHeaderEnd() = 0;  // The value of the header named so far is complete.
  virtual void OnBody(std::string_view piece) = 0;
};

// Sees each piece of a body as it is parsed, beside the inspector or the matcher (a streamed
// answer's events are read from them).
class BodySink {
 public:
  virtual void OnBodyPiece(std::string_view piece) = 0;

 protected:
  ~BodySink() = default;
};

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
  // True once any byte of the current response arrived; once its head is complete; once a
  // byte of its body arrived.
  bool started() const { return started_; }
  bool head_complete() const { return headers_complete_; }
  bool body_begun() const { return body_begun_; }

  // From the next Start() on, each body is searched for `matcher`'s text as it goes by (none:
  // bodies are skipped unread). The matcher must outlive the parser's use of it.
  void SetBodyMatcher(const BodyMatcher* matcher);
  // The current response's body (its decoded chunks, not decompressed) contains the text.
  bool body_found() const { return body_state_ == BodyMatcher::kFound; }
  // From the next Start() on, `inspector` sees every header and the body instead of the
  // matcher (none: back to the matcher's way). It must outlive the parser's use of it.
  void SetInspector(ResponseInspector* inspector);
  // From the next Start() on, `sink` sees every piece of each body too (none: not). It must
  // outlive the parser's use of it.
  void SetBodySink(BodySink* sink);

 private:
  static int OnMessageBegin(llhttp_t* parser);
  static int OnHeadersComplete(llhttp_t* parser);
  static int OnBody(llhttp_t* parser, const char* at, size_t length);
  static int OnBodyBegun(llhttp_t* parser, const char* at, size_t length);
  static int OnMessageComplete(llhttp_t* parser);
  static const llhttp_settings_t& Settings();
  static const llhttp_settings_t& SettingsWithBody();
  static const llhttp_settings_t& SettingsWithInspector();
  static int OnHeaderField(llhttp_t* parser, const char* at, size_t length);
  static int OnHeaderValue(llhttp_t* parser, const char* at, size_t length);
  static int OnHeaderValueComplete(llhttp_t* parser);

  int status_code_ = 0;
  bool head_request_ = false;
  bool keep_alive_ = false;
  bool started_ = false;
  bool body_begun_ = false;
  const BodyMatcher* matcher_ = nullptr;
  ResponseInspector* inspector_ = nullptr;
  BodySink* sink_ = nullptr;
  uint32_t body_state_ = 0;
};

}  // namespace uringload::proto
