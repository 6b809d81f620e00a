#include "proto/http2_server_session.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

#include "absl/strings/str_cat.h"
#include "proto/grpc_message.h"
#include "proto/response_builder.h"

namespace uringload::proto {
namespace {

// Stream indexes travel as nghttp2's stream user data, plus one so that none is null.
void* IndexData(uint32_t index) { return reinterpret_cast<void*>(uintptr_t{index} + 1); }
uint32_t IndexOf(void* data) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(data) - 1);
}

}  // namespace

Http2ServerSession::Http2ServerSession(Http2Memory* memory)
    : own_memory_(memory == nullptr ? std::make_unique<Http2Memory>() : nullptr),
      allocator_(memory == nullptr ? *own_memory_ : *memory),
      output_(memory == nullptr ? *own_memory_ : *memory) {}

Http2ServerSession::~Http2ServerSession() { Stop(); }

const nghttp2_session_callbacks* Http2ServerSession::Callbacks() {
  static const nghttp2_session_callbacks* const callbacks = [] {
    nghttp2_session_callbacks* c = nullptr;
    nghttp2_session_callbacks_new(&c);
    nghttp2_session_callbacks_set_on_begin_headers_callback(c, &OnBeginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(c, &OnHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(c, &OnFrameReceived);
    nghttp2_session_callbacks_set_on_stream_close_callback(c, &OnStreamClose);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(c, &OnDataChunk);
    return c;
  }();
  return callbacks;
}

absl::Status Http2ServerSession::Start(Events* events, const Settings& settings) {
  Stop();
  events_ = events;
  keep_text_ = settings.keep_text;
  keep_body_ = settings.keep_body;
  // Room for every stream the client may open, and a few it opens before our SETTINGS reach it
  // (those above get REFUSED_STREAM).
  streams_.resize(settings.max_streams + 16);
  free_streams_.clear();
  for (uint32_t i = static_cast<uint32_t>(streams_.size()); i > 0; --i)
    free_streams_.push_back(i - 1);
  // Window updates for what OnDataChunk consumed, not nghttp2's automatic ones: a client uploads
  // under HTTP/2's initial window until our smaller one reaches it, and nghttp2 1.52 then
  // reset a stream that held more than the new window once a WINDOW_UPDATE queued before the
  // client's ACK went out (FLOW_CONTROL_ERROR, about 1 run in 40 of the e2e settings test).
  static const nghttp2_option* const option = [] {
    nghttp2_option* o = nullptr;
    nghttp2_option_new(&o);
    nghttp2_option_set_no_auto_window_update(o, 1);
    return o;
  }();
  int rv = nghttp2_session_server_new3(&session_, Callbacks(), this, option, allocator_.mem());
  if (rv != 0) return absl::InternalError(absl::StrCat("nghttp2: ", nghttp2_strerror(rv)));
  nghttp2_settings_entry entries[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, settings.max_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, settings.window}};
  rv = nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, entries, std::size(entries));
  if (rv != 0) return absl::InternalError(absl::StrCat("nghttp2: ", nghttp2_strerror(rv)));
  return absl::OkStatus();
}

void Http2ServerSession::Stop() {
  if (session_ != nullptr) nghttp2_session_del(session_);
  session_ = nullptr;
  output_.Clear();
}

absl::Status Http2ServerSession::Receive(std::string_view data) {
  ssize_t rv = nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(data.data()),
                                        data.size());
  if (rv < 0) return absl::InternalError(nghttp2_strerror(static_cast<int>(rv)));
  return absl::OkStatus();
}

void Http2ServerSession::Respond(int32_t stream_id, int status, std::string_view body,
                                 bool partial) {
  Stream* stream = StreamOf(stream_id);
  if (stream == nullptr) return;  // The client reset it meanwhile.
  if (body.size() <= kMaxCopiedBody) {
    std::copy(body.begin(), body.end(), stream->copy);
    body = std::string_view(stream->copy, body.size());
  }
  stream->body = body;
  stream->sent = 0;
  stream->stop_at = partial ? body.size() / 2 : body.size();
  stream->grpc_trailers = false;
  std::string code = std::to_string(status);
  std::string length = std::to_string(body.size());
  // The names are literals in lower case: nghttp2 need not copy them.
  nghttp2_nv fields[] = {Http2Field(":status", code, NGHTTP2_NV_FLAG_NO_COPY_NAME),
                         Http2Field("content-length", length, NGHTTP2_NV_FLAG_NO_COPY_NAME)};
  nghttp2_data_provider provider{.source = {.ptr = stream}, .read_callback = &ReadBody};
  nghttp2_submit_response(session_, stream_id, fields, std::size(fields), &provider);
}

void Http2ServerSession::RespondGrpc(int32_t stream_id, int grpc_status, bool partial, bool echo) {
  Stream* stream = StreamOf(stream_id);
  if (stream == nullptr) return;  // The client reset it meanwhile.
  constexpr int kResourceExhausted = 8;
  if (echo && grpc_status == 0 && stream->body_overflow) grpc_status = kResourceExhausted;
  if (grpc_status != 0) {  // Trailers-only (PROTOCOL-HTTP2.md): one HEADERS that ends the call.
    std::string code = std::to_string(grpc_status);
    nghttp2_nv fields[] = {
        Http2Field(":status", "200", NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE),
        Http2Field("content-type", "application/grpc",
                   NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE),
        Http2Field("grpc-status", code, NGHTTP2_NV_FLAG_NO_COPY_NAME)};
    nghttp2_submit_response(session_, stream_id, fields, std::size(fields), nullptr);
    return;
  }
  if (echo) {  // The request's messages, prefixes and all (the stream keeps them to its end).
    stream->body = stream->received_body;
  } else {  // One empty message: its prefix, a zero flag and a zero length.
    std::fill(stream->copy, stream->copy + kGrpcPrefixBytes, '\0');
    stream->body = std::string_view(stream->copy, kGrpcPrefixBytes);
  }
  stream->sent = 0;
  stream->stop_at = partial ? stream->body.size() / 2 : stream->body.size();
  stream->grpc_trailers = true;
  nghttp2_nv fields[] = {
      Http2Field(":status", "200", NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE),
      Http2Field("content-type", "application/grpc",
                 NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE)};
  nghttp2_data_provider provider{.source = {.ptr = stream}, .read_callback = &ReadBody};
  nghttp2_submit_response(session_, stream_id, fields, std::size(fields), &provider);
}

void Http2ServerSession::Reset(int32_t stream_id, uint32_t error_code) {
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream_id, error_code);
}

void Http2ServerSession::GoAway() {
  nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE,
                        nghttp2_session_get_last_proc_stream_id(session_), NGHTTP2_NO_ERROR,
                        nullptr, 0);
}

void Http2ServerSession::InjectMalformedFrame() {
  // WINDOW_UPDATE on stream 0 with a 1-byte payload: a FRAME_SIZE_ERROR (RFC 9113 6.9).
  constexpr char kFrame[] = {0, 0, 1, NGHTTP2_WINDOW_UPDATE, 0, 0, 0, 0, 0, 1};
  output_.Inject(std::string_view(kFrame, sizeof(kFrame)));
}

bool Http2ServerSession::finished() const {
  return nghttp2_session_want_read(session_) == 0 && nghttp2_session_want_write(session_) == 0;
}

Http2ServerSession::Stream* Http2ServerSession::StreamOf(int32_t stream_id) {
  void* data = nghttp2_session_get_stream_user_data(session_, stream_id);
  return data == nullptr ? nullptr : &streams_[IndexOf(data)];
}

int Http2ServerSession::OnBeginHeaders(nghttp2_session* session, const nghttp2_frame* frame,
                                       void* user_data) {
  auto* self = static_cast<Http2ServerSession*>(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  if (self->free_streams_.empty()) {
    nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                              NGHTTP2_REFUSED_STREAM);
    return 0;
  }
  uint32_t index = self->free_streams_.back();
  self->free_streams_.pop_back();
  Stream& stream = self->streams_[index];
  stream.echo_size = 0;
  stream.body = {};
  stream.sent = stream.stop_at = 0;
  stream.method.clear();
  stream.path.clear();
  stream.fields.clear();
  stream.received_body.clear();
  stream.body_overflow = false;
  nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, IndexData(index));
  return 0;
}

int Http2ServerSession::OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                                 size_t namelen, const uint8_t* value, size_t valuelen, uint8_t,
                                 void* user_data) {
  auto* self = static_cast<Http2ServerSession*>(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  std::string_view field(reinterpret_cast<const char*>(name), namelen);
  std::string_view text(reinterpret_cast<const char*>(value), valuelen);
  bool is_path = field == ":path";
  if (!is_path && !self->keep_text_) return 0;  // The common case: only :path is read.
  Stream* stream = self->StreamOf(frame->hd.stream_id);
  if (stream == nullptr) return 0;
  if (self->keep_text_) {
    if (field == ":method") {
      stream->method.assign(text);
    } else if (field == ":path") {
      stream->path.assign(text);
    } else {
      stream->fields.append(field).append(": ").append(text).append("\r\n");
    }
  }
  if (!is_path) return 0;
  std::string_view echo = EchoedSegment(text, kMaxEcho);
  std::copy(echo.begin(), echo.end(), stream->echo);
  stream->echo_size = static_cast<uint8_t>(echo.size());
  return 0;
}

int Http2ServerSession::OnFrameReceived(nghttp2_session*, const nghttp2_frame* frame,
                                        void* user_data) {
  auto* self = static_cast<Http2ServerSession*>(user_data);
  bool request_ends = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                      (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  if (!request_ends) return 0;
  Stream* stream = self->StreamOf(frame->hd.stream_id);
  if (stream == nullptr) return 0;  // Refused: no room.
  if (self->keep_text_) {
    self->text_.clear();
    self->text_.append(stream->method).append(" ").append(stream->path).append(" HTTP/2\r\n");
    self->text_.append(stream->fields).append("\r\n").append(stream->received_body);
  }
  self->events_->OnRequest({.stream_id = frame->hd.stream_id,
                            .echo = std::string_view(stream->echo, stream->echo_size),
                            .text = self->keep_text_ ? std::string_view(self->text_) : ""});
  return 0;
}

int Http2ServerSession::OnDataChunk(nghttp2_session* session, uint8_t, int32_t stream_id,
                                    const uint8_t* data, size_t len, void* user_data) {
  auto* self = static_cast<Http2ServerSession*>(user_data);
  // Consumed as it arrives: the client may send more at once (Start says why it is done here).
  if (nghttp2_is_fatal(nghttp2_session_consume(session, stream_id, len))) {
    return NGHTTP2_ERR_CALLBACK_FAILURE;
  }
  if (!self->keep_text_ && !self->keep_body_) return 0;
  Stream* stream = self->StreamOf(stream_id);
  if (stream == nullptr) return 0;
  if (self->keep_body_ && stream->received_body.size() + len > kMaxKeptBody) {
    stream->body_overflow = true;
  }
  if (stream->body_overflow && !self->keep_text_) return 0;
  stream->received_body.append(reinterpret_cast<const char*>(data), len);
  return 0;
}

int Http2ServerSession::OnStreamClose(nghttp2_session* session, int32_t stream_id, uint32_t,
                                      void* user_data) {
  auto* self = static_cast<Http2ServerSession*>(user_data);
  void* data = nghttp2_session_get_stream_user_data(session, stream_id);
  if (data != nullptr) self->free_streams_.push_back(IndexOf(data));
  return 0;
}

ssize_t Http2ServerSession::ReadBody(nghttp2_session* session, int32_t stream_id, uint8_t* buf,
                                     size_t length, uint32_t* data_flags,
                                     nghttp2_data_source* source, void*) {
  auto* stream = static_cast<Stream*>(source->ptr);
  if (stream->sent == stream->stop_at && stream->stop_at < stream->body.size()) {
    return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // Partial: the stream is reset here.
  }
  size_t n = std::min(length, stream->stop_at - stream->sent);
  std::memcpy(buf, stream->body.data() + stream->sent, n);
  stream->sent += n;
  if (stream->sent == stream->body.size()) {
    *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    if (stream->grpc_trailers) {  // The call's status follows in trailers, which end it.
      *data_flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
      nghttp2_nv ok[] = {Http2Field("grpc-status", "0",
                                    NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE)};
      nghttp2_submit_trailer(session, stream_id, ok, std::size(ok));
    }
  }
  return static_cast<ssize_t>(n);
}

}  // namespace uringload::proto
