#include "proto/http2_client_session.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "proto/grpc_status.h"

namespace uringload::proto {
namespace {

// Tags travel as nghttp2's stream user data, plus one so that no tag is a null pointer.
void* TagData(uint32_t tag) { return reinterpret_cast<void*>(uintptr_t{tag} + 1); }
uint32_t TagFromData(void* data) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(data) - 1);
}

}  // namespace

Http2ClientSession::Http2ClientSession(uint32_t streams, Http2ClientSettings settings,
                                       Http2Memory* memory)
    : own_memory_(memory == nullptr ? std::make_unique<Http2Memory>() : nullptr),
      memory_(memory == nullptr ? *own_memory_ : *memory),
      allocator_(memory_),
      settings_(settings),
      streams_(streams),
      output_(memory_) {}

Http2ClientSession::~Http2ClientSession() { Stop(); }

const nghttp2_session_callbacks* Http2ClientSession::Callbacks(bool with_body) {
  auto make = [](bool body) {
    nghttp2_session_callbacks* c = nullptr;
    nghttp2_session_callbacks_new(&c);
    nghttp2_session_callbacks_set_on_header_callback(c, &OnHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(c, &OnFrameReceived);
    nghttp2_session_callbacks_set_on_begin_frame_callback(c, &OnBeginFrame);
    nghttp2_session_callbacks_set_on_stream_close_callback(c, &OnStreamClose);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(c, &OnFrameNotSent);
    nghttp2_session_callbacks_set_on_frame_send_callback(c, &OnFrameSent);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(c, &OnInvalidFrame);
    nghttp2_session_callbacks_set_error_callback2(c, &OnError);
    if (body) nghttp2_session_callbacks_set_on_data_chunk_recv_callback(c, &OnDataChunk);
    return c;
  };
  static const nghttp2_session_callbacks* const plain = make(false);
  static const nghttp2_session_callbacks* const checking = make(true);
  return with_body ? checking : plain;
}

const nghttp2_option* Http2ClientSession::Options() {
  static const nghttp2_option* const option = [] {
    nghttp2_option* o = nullptr;
    nghttp2_option_new(&o);
    // Only what the caller opens: no pushed streams to keep.
    nghttp2_option_set_max_reserved_remote_streams(o, 0);
    return o;
  }();
  return option;
}

absl::Status Http2ClientSession::Start(Events* events) {
  Stop();
  events_ = events;
  int rv = nghttp2_session_client_new3(
      &session_, Callbacks(matcher_ != nullptr || inspector_ != nullptr || grpc_ || stream_bodies_),
      this, Options(), allocator_.mem());
  if (rv != 0) return absl::InternalError(absl::StrCat("nghttp2: ", nghttp2_strerror(rv)));
  // The client never sends a priority (RFC 9218 2.1): nghttp2 then keeps no dependency tree,
  // whose upkeep was 1.6% of the client's CPU samples over TLS (docs/performance.md).
  nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<uint32_t>(settings_.window)},
      {NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1},
      // Announced even at HPACK's default, which changes nothing for a server that honours
      // it; nginx answers any announced size by keeping nothing in the client's table (as
      // for Chrome, which announces 65,536), and that halves a connection's memory.
      {NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, settings_.header_table}};
  rv = nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  if (rv == 0) {
    rv = nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, settings_.window);
  }
  if (rv != 0) return absl::InternalError(absl::StrCat("nghttp2: ", nghttp2_strerror(rv)));
  output_.Take(session_);  // The preface is in the frame buffer the worker's sessions share.
  return absl::OkStatus();
}

void Http2ClientSession::Stop() {
  if (session_ != nullptr) nghttp2_session_del(session_);
  session_ = nullptr;
  output_.Clear();
  open_streams_ = 0;
  going_away_ = false;
  goaway_last_stream_ = 0;
  failure_.clear();
  last_error_.clear();
  failed_in_hpack_ = false;
}

absl::Status Http2ClientSession::Submit(const RequestTemplate& request,
                                        const TemplateContext& context, uint32_t tag) {
  Stream& stream = streams_.at(tag);
  std::string rendered_body = std::move(stream.rendered_body);  // Its capacity stays.
  stream = Stream{.request = &request, .grpc = grpc_ && request.is_grpc()};
  stream.rendered_body = std::move(rendered_body);
  nghttp2_data_provider body{.source = {.ptr = &stream}, .read_callback = &ReadBody};
  stream.body = request.BodyFor(context, stream.rendered_body);
  // Every rendered value in the worker's one buffer: nghttp2 copies them. Names and fixed
  // values live in the request template for the whole run, in lower case, so nghttp2 points
  // at them instead of copying (and lower-casing) them for each request: that copy was 8% of
  // the h2c client's instructions (docs/performance.md).
  std::span<const RequestField> fields = memory_.request_fields().layout.LayOut(
      request, context,
      request.has_body() ? std::optional<size_t>(stream.body.size()) : std::nullopt);
  std::vector<nghttp2_nv>& nv = memory_.request_fields().fields;
  nv.clear();
  for (const RequestField& f : fields) {
    nv.push_back(Http2Field(f.name, f.value,
                            f.fixed ? NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE
                                    : NGHTTP2_NV_FLAG_NO_COPY_NAME));
  }
  int32_t id = nghttp2_submit_request(session_, nullptr, nv.data(), nv.size(),
                                      request.has_body() ? &body : nullptr, TagData(tag));
  if (id < 0) return absl::InternalError(absl::StrCat("nghttp2: ", nghttp2_strerror(id)));
  stream.id = id;
  ++open_streams_;
  return absl::OkStatus();
}

absl::Status Http2ClientSession::Receive(std::string_view data) {
  ssize_t rv = nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(data.data()),
                                        data.size());
  if (rv < 0) return absl::InternalError(nghttp2_strerror(static_cast<int>(rv)));
  return absl::OkStatus();
}

std::string_view Http2ClientSession::Output() { return output_.Next(session_); }

void Http2ClientSession::Sent(uint32_t bytes) { output_.Sent(bytes); }

uint32_t Http2ClientSession::peer_max_streams() const {
  return nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
}

bool Http2ClientSession::can_open() const {
  // Client stream ids are odd and below 2^31 (RFC 9113 5.1.1).
  return !going_away_ && nghttp2_session_get_next_stream_id(session_) < (1u << 31) - 1;
}

void Http2ClientSession::Cancel(uint32_t tag) {
  Stream& stream = streams_[tag];
  if (stream.id == 0) return;
  // The stream's later frames and its close find no stream of theirs (StreamOf), so a new
  // stream may take the tag before the RST_STREAM leaves.
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, stream.id, NGHTTP2_CANCEL);
  stream.id = 0;
  --open_streams_;
}

bool Http2ClientSession::MayHaveProcessed(uint32_t tag) const {
  const Stream& stream = streams_[tag];
  return stream.sent && !(going_away_ && stream.id > goaway_last_stream_);
}

uint32_t Http2ClientSession::streams_opened() const {
  return (nghttp2_session_get_next_stream_id(session_) - 1) / 2;
}

Http2ClientSession::Stream* Http2ClientSession::StreamOf(int32_t stream_id) {
  void* data = nghttp2_session_get_stream_user_data(session_, stream_id);
  if (data == nullptr) return nullptr;
  Stream& stream = streams_[TagFromData(data)];
  return stream.id == stream_id ? &stream : nullptr;
}

int Http2ClientSession::OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                                 size_t namelen, const uint8_t* value, size_t valuelen, uint8_t,
                                 void* user_data) {
  auto* self = static_cast<Http2ClientSession*>(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  // The field first: the stream is looked up once per response, not once per field.
  std::string_view field(reinterpret_cast<const char*>(name), namelen);
  // gRPC's status: in the trailers, or in the response of a call that has only trailers.
  if (self->grpc_ && field == "grpc-status" &&
      (frame->headers.cat == NGHTTP2_HCAT_HEADERS || frame->headers.cat == NGHTTP2_HCAT_RESPONSE)) {
    if (Stream* stream = self->StreamOf(frame->hd.stream_id); stream != nullptr && stream->grpc) {
      stream->grpc_status =
          ParseGrpcStatus(std::string_view(reinterpret_cast<const char*>(value), valuelen))
              .value_or(-1);
    }
    return 0;
  }
  if (frame->headers.cat != NGHTTP2_HCAT_RESPONSE) return 0;
  if (self->inspector_ != nullptr && field != ":status") {  // One stream at a time: its own.
    self->inspector_->OnHeaderName(field);
    self->inspector_->OnHeaderValue(
        std::string_view(reinterpret_cast<const char*>(value), valuelen));
    self->inspector_->OnHeaderEnd();
    return 0;
  }
  if (field != ":status") return 0;
  if (self->inspector_ != nullptr) self->inspector_->OnResponseBegin();  // Also after a 1xx.
  Stream* stream = self->StreamOf(frame->hd.stream_id);
  if (stream == nullptr) return 0;
  int status = 0;
  for (size_t i = 0; i < valuelen; ++i) status = status * 10 + (value[i] - '0');
  stream->status = status;  // nghttp2 checked it is three digits.
  return 0;
}

int Http2ClientSession::OnFrameReceived(nghttp2_session*, const nghttp2_frame* frame,
                                        void* user_data) {
  auto* self = static_cast<Http2ClientSession*>(user_data);
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    self->going_away_ = true;
    self->goaway_last_stream_ = frame->goaway.last_stream_id;
    return 0;
  }
  if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_RESPONSE) {
    Stream* stream = self->StreamOf(frame->hd.stream_id);
    if (stream != nullptr && stream->status >= 200) {  // Not an interim (1xx) head.
      self->events_->OnProgress(self->TagOf(*stream), ResponseProgress::kHead);
    }
  }
  if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
      (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
    // An interim (1xx) response never ends the stream, so this is the final one's end.
    if (Stream* stream = self->StreamOf(frame->hd.stream_id)) stream->complete = true;
  }
  return 0;
}

// The body's first byte: the header of its first DATA frame with a payload, before the
// payload itself (which may take more reads).
int Http2ClientSession::OnBeginFrame(nghttp2_session*, const nghttp2_frame_hd* hd,
                                     void* user_data) {
  if (hd->type != NGHTTP2_DATA || hd->length == 0) return 0;
  auto* self = static_cast<Http2ClientSession*>(user_data);
  Stream* stream = self->StreamOf(hd->stream_id);
  if (stream != nullptr && !stream->body_begun) {
    stream->body_begun = true;
    self->events_->OnProgress(self->TagOf(*stream), ResponseProgress::kFirstByte);
  }
  return 0;
}

int Http2ClientSession::OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t error_code,
                                      void* user_data) {
  auto* self = static_cast<Http2ClientSession*>(user_data);
  if (Stream* stream = self->StreamOf(stream_id)) {
    self->End(self->TagOf(*stream), error_code);
  }
  return 0;
}

// A request's HEADERS went out; the client sends GOAWAY only to end a connection whose server
// broke the protocol.
int Http2ClientSession::OnFrameSent(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  auto* self = static_cast<Http2ClientSession*>(user_data);
  if (frame->hd.type == NGHTTP2_HEADERS) {
    if (Stream* stream = self->StreamOf(frame->hd.stream_id)) stream->sent = true;
  }
  if (frame->hd.type == NGHTTP2_GOAWAY && self->failure_.empty()) {
    self->failure_ = self->last_error_.empty()
                         ? std::string(nghttp2_http2_strerror(frame->goaway.error_code))
                         : self->last_error_;
    self->failed_in_hpack_ = frame->goaway.error_code == NGHTTP2_COMPRESSION_ERROR;
  }
  return 0;
}

// A response that breaks HTTP's rules (a :status of other than three digits, a field HTTP/2
// forbids): nghttp2 resets its stream with PROTOCOL_ERROR, which is this side's verdict.
int Http2ClientSession::OnInvalidFrame(nghttp2_session*, const nghttp2_frame* frame,
                                       int lib_error_code, void* user_data) {
  if (lib_error_code != NGHTTP2_ERR_HTTP_HEADER && lib_error_code != NGHTTP2_ERR_HTTP_MESSAGING) {
    return 0;
  }
  auto* self = static_cast<Http2ClientSession*>(user_data);
  if (Stream* stream = self->StreamOf(frame->hd.stream_id)) stream->malformed = true;
  return 0;
}

int Http2ClientSession::OnError(nghttp2_session*, int, const char* message, size_t size,
                                void* user_data) {
  static_cast<Http2ClientSession*>(user_data)->last_error_.assign(message, size);
  return 0;
}

// A request whose HEADERS never left (a GOAWAY came first): the server never saw it.
int Http2ClientSession::OnFrameNotSent(nghttp2_session*, const nghttp2_frame* frame, int,
                                       void* user_data) {
  auto* self = static_cast<Http2ClientSession*>(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  for (uint32_t tag = 0; tag < self->streams_.size(); ++tag) {
    if (self->streams_[tag].id == frame->hd.stream_id) self->End(tag, NGHTTP2_REFUSED_STREAM);
  }
  return 0;
}

int Http2ClientSession::OnDataChunk(nghttp2_session*, uint8_t, int32_t stream_id,
                                    const uint8_t* data, size_t length, void* user_data) {
  auto* self = static_cast<Http2ClientSession*>(user_data);
  if (Stream* stream = self->StreamOf(stream_id); stream != nullptr) {
    std::string_view piece(reinterpret_cast<const char*>(data), length);
    if (self->stream_bodies_) self->events_->OnBody(self->TagOf(*stream), piece);
    if (stream->grpc) {
      bool first = stream->grpc_messages.messages() == 0;
      stream->grpc_messages.Feed(piece);
      if (first && stream->grpc_messages.messages() > 0) {
        self->events_->OnProgress(self->TagOf(*stream), ResponseProgress::kFirstMessage);
      }
    }
    if (self->inspector_ != nullptr) {
      self->inspector_->OnBody(piece);
    } else if (self->matcher_ != nullptr && !stream->grpc) {
      stream->body_state = self->matcher_->Feed(stream->body_state, piece);
    }
  }
  return 0;
}

void Http2ClientSession::End(uint32_t tag, uint32_t error_code) {
  Stream& stream = streams_[tag];
  if (stream.id == 0) return;  // Ended already.
  stream.id = 0;
  --open_streams_;
  events_->OnStreamEnd({.tag = tag,
                        .status = stream.status,
                        .error_code = error_code,
                        .complete = stream.complete,
                        .malformed = stream.malformed && !stream.complete,
                        .unprocessed = !stream.complete && error_code == NGHTTP2_REFUSED_STREAM,
                        .reset = error_code != NGHTTP2_NO_ERROR,
                        .body_found = stream.body_state == BodyMatcher::kFound,
                        .grpc = stream.grpc,
                        .grpc_status = stream.grpc_status,
                        .grpc_messages = stream.grpc_messages.messages(),
                        .grpc_malformed = stream.grpc && !stream.grpc_messages.AtBoundary()});
}

ssize_t Http2ClientSession::ReadBody(nghttp2_session*, int32_t stream_id, uint8_t* buf,
                                     size_t length, uint32_t* data_flags,
                                     nghttp2_data_source* source, void*) {
  auto* stream = static_cast<Stream*>(source->ptr);
  // A cancelled stream whose tag went to a new one: its body is not this stream's to send.
  if (stream->id != stream_id) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  std::string_view body = stream->body;
  size_t n = std::min(length, body.size() - stream->body_sent);
  std::memcpy(buf, body.data() + stream->body_sent, n);
  stream->body_sent += n;
  if (stream->body_sent == body.size()) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace uringload::proto
