#include "proto/response_parser.h"

namespace uringload::proto {

ResponseParser::ResponseParser() : MessageFeeder(HTTP_RESPONSE, &Settings(), this) {}

const llhttp_settings_t& ResponseParser::Settings() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_message_begin = &OnMessageBegin;
    s.on_headers_complete = &OnHeadersComplete;
    s.on_message_complete = &OnMessageComplete;
    s.on_body = &OnBodyBegun;
    return s;
  }();
  return settings;
}

// Without a body check a call per piece only notes that the body began (its time to first
// byte): one call per response and receive.
const llhttp_settings_t& ResponseParser::SettingsWithBody() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s = Settings();
    s.on_body = &OnBody;
    return s;
  }();
  return settings;
}

// A flow step's user sees the headers and the body.
const llhttp_settings_t& ResponseParser::SettingsWithInspector() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s = SettingsWithBody();
    s.on_header_field = &OnHeaderField;
    s.on_header_value = &OnHeaderValue;
    s.on_header_value_complete = &OnHeaderValueComplete;
    return s;
  }();
  return settings;
}

void ResponseParser::SetInspector(ResponseInspector* inspector) {
  inspector_ = inspector;
  if (inspector != nullptr) {
    UseSettings(&SettingsWithInspector());
  } else {
    SetBodyMatcher(matcher_);
  }
}

int ResponseParser::OnHeaderField(llhttp_t* parser, const char* at, size_t length) {
  static_cast<ResponseParser*>(parser->data)->inspector_->OnHeaderName({at, length});
  return HPE_OK;
}

int ResponseParser::OnHeaderValue(llhttp_t* parser, const char* at, size_t length) {
  static_cast<ResponseParser*>(parser->data)->inspector_->OnHeaderValue({at, length});
  return HPE_OK;
}

int ResponseParser::OnHeaderValueComplete(llhttp_t* parser) {
  static_cast<ResponseParser*>(parser->data)->inspector_->OnHeaderEnd();
  return HPE_OK;
}

void ResponseParser::SetBodyMatcher(const BodyMatcher* matcher) {
  matcher_ = matcher;
  if (inspector_ != nullptr) return;
  UseSettings(matcher != nullptr || sink_ != nullptr ? &SettingsWithBody() : &Settings());
}

void ResponseParser::SetBodySink(BodySink* sink) {
  sink_ = sink;
  SetBodyMatcher(matcher_);
}

void ResponseParser::Start(bool head_request) {
  ResetParser();
  head_request_ = head_request;
  status_code_ = 0;
  keep_alive_ = false;
  started_ = false;
  body_begun_ = false;
  body_state_ = 0;
}

int ResponseParser::OnMessageBegin(llhttp_t* parser) {
  auto* self = static_cast<ResponseParser*>(parser->data);
  self->BeginMessage();
  self->body_state_ = 0;
  self->body_begun_ = false;
  if (self->inspector_ != nullptr) self->inspector_->OnResponseBegin();
  return HPE_OK;
}

int ResponseParser::OnBodyBegun(llhttp_t* parser, const char*, size_t) {
  static_cast<ResponseParser*>(parser->data)->body_begun_ = true;
  return HPE_OK;
}

int ResponseParser::OnBody(llhttp_t* parser, const char* at, size_t length) {
  auto* self = static_cast<ResponseParser*>(parser->data);
  self->body_begun_ = true;
  if (self->sink_ != nullptr) self->sink_->OnBodyPiece(std::string_view(at, length));
  if (self->inspector_ != nullptr) {
    self->inspector_->OnBody(std::string_view(at, length));
  } else if (self->matcher_ != nullptr) {
    self->body_state_ = self->matcher_->Feed(self->body_state_, std::string_view(at, length));
  }
  return HPE_OK;
}

int ResponseParser::OnHeadersComplete(llhttp_t* parser) {
  auto* self = static_cast<ResponseParser*>(parser->data);
  self->HeadersDone();
  // Returning 1 tells llhttp that no body follows. 204 and 304 never have one, whatever
  // Content-Length says (RFC 9110 6.4.1); llhttp only knows that when the header is absent.
  int status = llhttp_get_status_code(parser);
  // llhttp takes any number as a status; HTTP's are three digits (found by fuzzing).
  if (status < 100 || status > 999) return -1;
  return self->head_request_ || status == 204 || status == 304 ? 1 : 0;
}

int ResponseParser::OnMessageComplete(llhttp_t* parser) {
  auto* self = static_cast<ResponseParser*>(parser->data);
  int status = llhttp_get_status_code(parser);
  // An interim response: pausing without MessageDone() lets the real one follow, with a
  // header count of its own.
  if (status >= 100 && status < 200 && status != 101) return HPE_PAUSED;
  self->status_code_ = status;
  self->keep_alive_ = llhttp_should_keep_alive(parser) != 0;
  self->MessageDone();
  return HPE_PAUSED;  // Stop right at the boundary; later bytes belong to no request.
}

ResponseParser::Result ResponseParser::Feed(std::string_view data) {
  if (!data.empty()) started_ = true;
  return MessageFeeder::Feed(data);
}

ResponseParser::Result ResponseParser::Finish() {
  if (complete_) return {State::kComplete, 0};
  if (error() != nullptr) return {State::kError, 0};
  llhttp_errno_t err = llhttp_finish(&parser_);
  if (complete_) return {State::kComplete, 0};
  if (!started_) return Fail("connection closed before a response", Error::kMalformed, 0);
  return Fail(err == HPE_OK ? "connection closed mid-response" : llhttp_errno_name(err),
              Error::kMalformed, 0);
}

}  // namespace uringload::proto
