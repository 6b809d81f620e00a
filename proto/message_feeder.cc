#include "proto/message_feeder.h"

namespace uringload::proto {

MessageFeeder::MessageFeeder(llhttp_type_t type, const llhttp_settings_t* settings, void* owner)
    : type_(type), settings_(settings), owner_(owner) {
  ResetParser();
}

void MessageFeeder::ResetParser() {
  llhttp_init(&parser_, type_, settings_);
  parser_.data = owner_;
  error_ = nullptr;
  error_kind_ = Error::kNone;
  BeginMessage();
}

void MessageFeeder::BeginMessage() {
  header_bytes_ = 0;
  headers_complete_ = false;
  complete_ = false;
}

MessageFeeder::Result MessageFeeder::Fail(const char* reason, Error kind, size_t consumed) {
  error_ = reason;
  error_kind_ = kind;
  return {State::kError, consumed};
}

MessageFeeder::Result MessageFeeder::Feed(std::string_view data) {
  if (error_ != nullptr) return {State::kError, 0};
  size_t offset = 0;
  while (true) {
    std::string_view rest = data.substr(offset);
    size_t room = kMaxHeaderBytes - header_bytes_;
    bool capped = !headers_complete_ && rest.size() > room;
    std::string_view chunk = capped ? rest.substr(0, room) : rest;
    llhttp_errno_t err = llhttp_execute(&parser_, chunk.data(), chunk.size());
    size_t used = chunk.size();
    bool paused = err == HPE_PAUSED;
    if (paused) {
      used = static_cast<size_t>(llhttp_get_error_pos(&parser_) - chunk.data());
      llhttp_resume(&parser_);
    } else if (err != HPE_OK) {
      return Fail(llhttp_errno_name(err), Error::kMalformed, offset + used);
    }
    offset += used;
    if (complete_) return {State::kComplete, offset};
    if (paused) {  // An interim message ended; the real one starts at `offset`.
      BeginMessage();
      continue;
    }
    if (!headers_complete_) {
      header_bytes_ += used;
      // Cut at the cap with bytes left over and still no end of headers: one byte too many.
      if (capped) return Fail("HPE_HEADERS_TOO_LARGE", Error::kHeadersTooLarge, offset);
      return {State::kNeedMore, offset};
    }
    if (offset == data.size()) return {State::kNeedMore, offset};
    // The headers ended inside a chunk cut at the cap: feed the rest uncut.
  }
}

}  // namespace uringload::proto
