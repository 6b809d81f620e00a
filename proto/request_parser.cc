#include "proto/request_parser.h"

namespace uringload::proto {

RequestParser::RequestParser() { Reset(); }

const llhttp_settings_t& RequestParser::Settings() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_message_begin = &OnMessageBegin;
    s.on_url = &OnUrl;
    s.on_headers_complete = &OnHeadersComplete;
    s.on_message_complete = &OnMessageComplete;
    return s;
  }();
  return settings;
}

void RequestParser::Reset() {
  llhttp_init(&parser_, HTTP_REQUEST, &Settings());
  parser_.data = this;
  error_ = nullptr;
  OnMessageBegin(&parser_);
}

int RequestParser::OnMessageBegin(llhttp_t* parser) {
  auto* self = static_cast<RequestParser*>(parser->data);
  self->header_bytes_ = 0;
  self->echo_size_ = 0;
  self->url_done_ = false;
  self->headers_complete_ = false;
  self->keep_alive_ = false;
  self->complete_ = false;
  return HPE_OK;
}

// The URL may arrive in pieces; keep only what follows the last '/' of the path.
int RequestParser::OnUrl(llhttp_t* parser, const char* at, size_t length) {
  auto* self = static_cast<RequestParser*>(parser->data);
  for (size_t i = 0; i < length && !self->url_done_; ++i) {
    char c = at[i];
    if (c == '?' || c == '#') {
      self->url_done_ = true;
    } else if (c == '/') {
      self->echo_size_ = 0;
    } else if (self->echo_size_ < kMaxEcho) {
      self->echo_[self->echo_size_++] = c;
    }
  }
  return HPE_OK;
}

int RequestParser::OnHeadersComplete(llhttp_t* parser) {
  static_cast<RequestParser*>(parser->data)->headers_complete_ = true;
  return HPE_OK;
}

int RequestParser::OnMessageComplete(llhttp_t* parser) {
  auto* self = static_cast<RequestParser*>(parser->data);
  self->keep_alive_ = llhttp_should_keep_alive(parser) != 0;
  self->complete_ = true;
  return HPE_PAUSED;
}

RequestParser::Result RequestParser::Feed(std::string_view data) {
  if (error_ != nullptr) return {State::kError, 0};
  if (complete_) OnMessageBegin(&parser_);  // The previous request was taken.
  llhttp_errno_t err = llhttp_execute(&parser_, data.data(), data.size());
  size_t consumed = data.size();
  if (err == HPE_PAUSED) {
    consumed = llhttp_get_error_pos(&parser_) - data.data();
    llhttp_resume(&parser_);
  } else if (err != HPE_OK) {
    error_ = llhttp_errno_name(err);
    return {State::kError, consumed};
  }
  if (complete_) return {State::kComplete, consumed};
  if (!headers_complete_) {
    header_bytes_ += consumed;
    if (header_bytes_ > kMaxHeaderBytes) {
      error_ = "HPE_HEADERS_TOO_LARGE";
      return {State::kError, consumed};
    }
  }
  return {State::kNeedMore, consumed};
}

}  // namespace uringload::proto
