#include "proto/response_parser.h"

namespace uringload::proto {

ResponseParser::ResponseParser() {
  llhttp_init(&parser_, HTTP_RESPONSE, &Settings());
  parser_.data = this;
}

const llhttp_settings_t& ResponseParser::Settings() {
  static const llhttp_settings_t settings = [] {
    llhttp_settings_t s;
    llhttp_settings_init(&s);
    s.on_message_begin = &OnMessageBegin;
    s.on_headers_complete = &OnHeadersComplete;
    s.on_message_complete = &OnMessageComplete;
    return s;
  }();
  return settings;
}

void ResponseParser::Start(bool head_request) {
  llhttp_reset(&parser_);
  parser_.data = this;
  head_request_ = head_request;
  header_bytes_ = 0;
  error_ = nullptr;
  status_code_ = 0;
  headers_complete_ = false;
  keep_alive_ = false;
  started_ = false;
  complete_ = false;
}

int ResponseParser::OnMessageBegin(llhttp_t* parser) {
  auto* self = static_cast<ResponseParser*>(parser->data);
  self->headers_complete_ = false;
  return HPE_OK;
}

int ResponseParser::OnHeadersComplete(llhttp_t* parser) {
  auto* self = static_cast<ResponseParser*>(parser->data);
  self->headers_complete_ = true;
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
  if (status >= 100 && status < 200 && status != 101) {
    self->header_bytes_ = 0;  // An interim response: the real one follows.
    return HPE_OK;
  }
  self->status_code_ = status;
  self->keep_alive_ = llhttp_should_keep_alive(parser) != 0;
  self->complete_ = true;
  return HPE_PAUSED;  // Stop right at the boundary; later bytes belong to no request.
}

ResponseParser::Result ResponseParser::Fail(const char* reason, size_t consumed) {
  error_ = reason;
  return {State::kError, consumed};
}

ResponseParser::Result ResponseParser::Feed(std::string_view data) {
  if (error_ != nullptr) return {State::kError, 0};
  if (!data.empty()) started_ = true;
  llhttp_errno_t err = llhttp_execute(&parser_, data.data(), data.size());
  size_t consumed = data.size();
  if (err == HPE_PAUSED) {
    consumed = llhttp_get_error_pos(&parser_) - data.data();
    llhttp_resume(&parser_);
  } else if (err != HPE_OK) {
    return Fail(llhttp_errno_name(err), consumed);
  }
  if (complete_) return {State::kComplete, consumed};
  if (!headers_complete_) {
    header_bytes_ += consumed;
    if (header_bytes_ > kMaxHeaderBytes) return Fail("HPE_HEADERS_TOO_LARGE", consumed);
  }
  return {State::kNeedMore, consumed};
}

ResponseParser::Result ResponseParser::Finish() {
  if (complete_) return {State::kComplete, 0};
  if (error_ != nullptr) return {State::kError, 0};
  llhttp_errno_t err = llhttp_finish(&parser_);
  if (complete_) return {State::kComplete, 0};
  if (!started_) return Fail("connection closed before a response", 0);
  return Fail(err == HPE_OK ? "connection closed mid-response" : llhttp_errno_name(err), 0);
}

}  // namespace uringload::proto
