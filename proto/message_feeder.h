// MessageFeeder: what the request and response parsers share around llhttp: feeding bytes,
// stopping right after each message (llhttp paused in on_message_complete), skipping interim
// messages, and an exact cap on the header block.
//
// The cap counts every byte from the first byte of a message (its start line) through the
// blank line that ends its headers: a block of exactly kMaxHeaderBytes is accepted, one more
// byte is an error. To be exact without counting per byte, a feed that could cross the cap is
// cut at the cap: if the headers are not complete by then, the block is too large.
#pragma once

#include <cstddef>
#include <string_view>

#include "llhttp.h"

namespace uringload::proto {

class MessageFeeder {
 public:
  static constexpr size_t kMaxHeaderBytes = 64 * 1024;

  enum class State { kNeedMore, kComplete, kError };
  struct Result {
    State state;
    size_t consumed;  // Bytes of the input that belong to this message.
  };
  // Why a message was rejected (llhttp's error name, or ours).
  enum class Error { kNone, kMalformed, kHeadersTooLarge };

  MessageFeeder(const MessageFeeder&) = delete;
  MessageFeeder& operator=(const MessageFeeder&) = delete;

  const char* error() const { return error_; }
  Error error_kind() const { return error_kind_; }

 protected:
  // `owner` is handed to the callbacks as llhttp_t::data.
  MessageFeeder(llhttp_type_t type, const llhttp_settings_t* settings, void* owner);

  // Re-initialises llhttp (a new connection) and forgets the current message.
  void ResetParser();
  // The callbacks llhttp calls from the next ResetParser() on.
  void UseSettings(const llhttp_settings_t* settings) { settings_ = settings; }
  // Forgets the current message's progress (call from on_message_begin).
  void BeginMessage();
  // Callbacks report progress through these.
  void HeadersDone() { headers_complete_ = true; }
  void MessageDone() { complete_ = true; }

  // Feeds bytes until the current message completes, more bytes are needed, or an error.
  // A callback that returns HPE_PAUSED without calling MessageDone() marks an interim
  // message (a 1xx response): its bytes are consumed and the next message's count starts.
  Result Feed(std::string_view data);
  Result Fail(const char* reason, Error kind, size_t consumed);

  llhttp_t parser_;
  bool headers_complete_ = false;
  bool complete_ = false;

 private:
  llhttp_type_t type_;
  const llhttp_settings_t* settings_;
  void* owner_;
  size_t header_bytes_ = 0;  // Of the current message, while its headers are incomplete.
  const char* error_ = nullptr;
  Error error_kind_ = Error::kNone;
};

}  // namespace uringload::proto
