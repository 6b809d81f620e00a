#include "proto/request_parser.h"

#include "absl/strings/ascii.h"

namespace uringload::proto {
namespace {

constexpr std::string_view kExpect = "expect";
constexpr std::string_view kContinue = "100-continue";

// Extends a case-insensitive prefix match of `want` by `piece`; kNoMatch sticks.
uint8_t MatchMore(uint8_t matched, std::string_view want, const char* at, size_t length,
                  uint8_t no_match) {
  if (matched == no_match) return no_match;
  if (matched + length > want.size()) return no_match;
  for (size_t i = 0; i < length; ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(at[i])) != want[matched + i]) {
      return no_match;
    }
  }
  return static_cast<uint8_t>(matched + length);
}

}  // namespace

RequestParser::RequestParser() : MessageFeeder(HTTP_REQUEST, &Settings(), this) {
  OnMessageBegin(&parser_);
}

const llhttp_settings_t& RequestParser::Settings() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_message_begin = &OnMessageBegin;
    s.on_url = &OnUrl;
    s.on_header_field = &OnHeaderField;
    s.on_header_value = &OnHeaderValue;
    s.on_headers_complete = &OnHeadersComplete;
    s.on_message_complete = &OnMessageComplete;
    return s;
  }();
  return settings;
}

void RequestParser::Reset() {
  ResetParser();
  OnMessageBegin(&parser_);
}

int RequestParser::OnMessageBegin(llhttp_t* parser) {
  auto* self = static_cast<RequestParser*>(parser->data);
  self->BeginMessage();
  self->echo_size_ = 0;
  self->url_done_ = false;
  self->keep_alive_ = false;
  self->expect_continue_ = false;
  self->field_match_ = 0;
  self->value_match_ = 0;
  self->in_value_ = false;
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

int RequestParser::OnHeaderField(llhttp_t* parser, const char* at, size_t length) {
  auto* self = static_cast<RequestParser*>(parser->data);
  if (self->in_value_) {  // A new header starts: the previous one is whole.
    if (self->field_match_ == kExpect.size() && self->value_match_ == kContinue.size()) {
      self->expect_continue_ = true;
    }
    self->in_value_ = false;
    self->field_match_ = 0;
    self->value_match_ = 0;
  }
  self->field_match_ = MatchMore(self->field_match_, kExpect, at, length, kNoMatch);
  return HPE_OK;
}

int RequestParser::OnHeaderValue(llhttp_t* parser, const char* at, size_t length) {
  auto* self = static_cast<RequestParser*>(parser->data);
  self->in_value_ = true;
  if (self->field_match_ == kExpect.size()) {
    self->value_match_ = MatchMore(self->value_match_, kContinue, at, length, kNoMatch);
  }
  return HPE_OK;
}

int RequestParser::OnHeadersComplete(llhttp_t* parser) {
  auto* self = static_cast<RequestParser*>(parser->data);
  if (self->in_value_ && self->field_match_ == kExpect.size() &&
      self->value_match_ == kContinue.size()) {
    self->expect_continue_ = true;
  }
  self->HeadersDone();
  return HPE_OK;
}

int RequestParser::OnMessageComplete(llhttp_t* parser) {
  auto* self = static_cast<RequestParser*>(parser->data);
  self->keep_alive_ = llhttp_should_keep_alive(parser) != 0;
  self->head_ = llhttp_get_method(parser) == HTTP_HEAD;
  self->MessageDone();
  return HPE_PAUSED;
}

RequestParser::Result RequestParser::Feed(std::string_view data) {
  if (complete_) OnMessageBegin(&parser_);  // The previous request was taken.
  return MessageFeeder::Feed(data);
}

}  // namespace uringload::proto
