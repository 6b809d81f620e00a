#include "proto/http3_server_session.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/base/status_macros.h"
#include "proto/response_builder.h"

namespace uringload::proto {
namespace {

void* PoolData(uint32_t index) { return reinterpret_cast<void*>(uintptr_t{index} + 1); }
uint32_t PoolIndex(void* data) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(data) - 1);
}

}  // namespace

const nghttp3_callbacks* Http3ServerSession::Callbacks() {
  static const nghttp3_callbacks callbacks = [] {
    nghttp3_callbacks c{};
    c.begin_headers = [](nghttp3_conn* conn, int64_t stream_id, void* self, void*) {
      auto* session = static_cast<Http3ServerSession*>(self);
      if (session->free_.empty()) {
        session->free_.push_back(static_cast<uint32_t>(session->pool_.size()));
        session->pool_.emplace_back();
      }
      uint32_t index = session->free_.back();
      session->free_.pop_back();
      session->pool_[index] = Stream{.id = stream_id};
      ++session->open_streams_;
      return nghttp3_conn_set_stream_user_data(conn, stream_id, PoolData(index));
    };
    c.recv_header = [](nghttp3_conn*, int64_t stream_id, int32_t token, nghttp3_rcbuf*,
                       nghttp3_rcbuf* value, uint8_t, void* self, void* data) {
      Stream* stream = static_cast<Http3ServerSession*>(self)->StreamOf(stream_id, data);
      if (stream == nullptr || token != NGHTTP3_QPACK_TOKEN__PATH) return 0;
      nghttp3_vec v = nghttp3_rcbuf_get_buf(value);
      std::string_view echo = EchoedSegment(
          std::string_view(reinterpret_cast<const char*>(v.base), v.len), sizeof(stream->echo));
      std::copy(echo.begin(), echo.end(), stream->echo);
      stream->echo_size = static_cast<uint8_t>(echo.size());
      return 0;
    };
    c.end_stream = [](nghttp3_conn*, int64_t stream_id, void* self, void* data) {
      auto* session = static_cast<Http3ServerSession*>(self);
      if (Stream* stream = session->StreamOf(stream_id, data)) {
        session->events_->OnRequest({.stream_id = stream_id,
                                     .handle = PoolIndex(data),
                                     .echo = std::string_view(stream->echo, stream->echo_size)});
      }
      return 0;
    };
    c.stream_close = [](nghttp3_conn*, int64_t stream_id, uint64_t, void* self, void* data) {
      auto* session = static_cast<Http3ServerSession*>(self);
      if (Stream* stream = session->StreamOf(stream_id, data)) {
        stream->id = -1;
        session->free_.push_back(PoolIndex(data));
        --session->open_streams_;
      }
      return 0;
    };
    c.acked_stream_data = [](nghttp3_conn*, int64_t stream_id, uint64_t length, void* self,
                             void* data) {
      auto* session = static_cast<Http3ServerSession*>(self);
      Stream* stream = session->StreamOf(stream_id, data);
      if (stream == nullptr || !stream->partial) return 0;
      stream->acked += length;
      if (stream->acked == stream->sent) session->cut_due_.emplace_back(PoolIndex(data), stream_id);
      return 0;
    };
    c.stop_sending = [](nghttp3_conn*, int64_t stream_id, uint64_t code, void* self, void*) {
      static_cast<Http3ServerSession*>(self)->events_->OnStreamShutdown(stream_id, code);
      return 0;
    };
    c.reset_stream = c.stop_sending;
    return c;
  }();
  return &callbacks;
}

absl::Status Http3ServerSession::Start(Events* events, int64_t control_stream,
                                       int64_t qpack_encoder_stream, int64_t qpack_decoder_stream,
                                       uint64_t max_streams) {
  Stop();
  events_ = events;
  for (Stream& stream : pool_) stream.id = -1;
  free_.clear();
  for (uint32_t i = static_cast<uint32_t>(pool_.size()); i-- > 0;) free_.push_back(i);
  open_streams_ = 0;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  int rv = nghttp3_conn_server_new(&conn_, Callbacks(), &settings, nghttp3_mem_default(), this);
  URINGLOAD_RETURN_IF_ERROR(Bind(rv, control_stream, qpack_encoder_stream, qpack_decoder_stream));
  nghttp3_conn_set_max_client_streams_bidi(conn_, max_streams);
  return absl::OkStatus();
}

absl::Status Http3ServerSession::Respond(int64_t stream_id, uint32_t handle, int status,
                                         std::string_view body, bool echo, bool partial) {
  URINGLOAD_CHECK(status >= 100 && status <= 999, "an HTTP status of %d", status);
  Stream* stream = StreamOf(stream_id, PoolData(handle));
  if (stream == nullptr) return absl::OkStatus();  // The client reset it meanwhile.
  std::snprintf(stream->status, sizeof(stream->status), "%03d", status);
  return Answer(*stream, echo ? std::string_view(stream->echo, stream->echo_size) : body, partial);
}

absl::Status Http3ServerSession::RespondMalformed(int64_t stream_id, uint32_t handle) {
  Stream* stream = StreamOf(stream_id, PoolData(handle));
  if (stream == nullptr) return absl::OkStatus();
  memcpy(stream->status, "2x0", sizeof(stream->status));
  return Answer(*stream, kMalformedBody);
}

absl::Status Http3ServerSession::Answer(Stream& stream, std::string_view body, bool partial) {
  stream.body = body;
  stream.partial = partial;
  stream.sent = partial ? body.size() / 2 : body.size();
  std::string length = absl::StrCat(stream.body.size());
  nghttp3_nv fields[] = {
      {.name = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(":status")),
       .value = reinterpret_cast<uint8_t*>(stream.status),
       .namelen = 7,
       .valuelen = 3,
       .flags = NGHTTP3_NV_FLAG_NONE},
      {.name = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>("content-length")),
       .value = reinterpret_cast<uint8_t*>(length.data()),
       .namelen = 14,
       .valuelen = length.size(),
       .flags = NGHTTP3_NV_FLAG_NONE},
  };
  nghttp3_data_reader reader{.read_data = [](nghttp3_conn*, int64_t id, nghttp3_vec* vec, size_t,
                                             uint32_t* flags, void* self,
                                             void* data) -> nghttp3_ssize {
    Stream* stream = static_cast<Http3ServerSession*>(self)->StreamOf(id, data);
    // A partial answer never ends its body: the stream waits for its reset.
    if (stream != nullptr && stream->partial && (stream->body_given || stream->sent == 0)) {
      return NGHTTP3_ERR_WOULDBLOCK;
    }
    if (stream == nullptr || !stream->partial) *flags |= NGHTTP3_DATA_FLAG_EOF;
    if (stream == nullptr || stream->body_given || stream->sent == 0) return 0;
    stream->body_given = true;
    vec[0].base = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(stream->body.data()));
    vec[0].len = stream->sent;
    return 1;
  }};
  int rv = nghttp3_conn_submit_response(conn_, stream.id, fields, std::size(fields), &reader);
  if (rv != 0) return Failed(rv);
  if (partial && stream.sent == 0) {  // No half of a body to wait for: cut after the headers.
    cut_due_.emplace_back(static_cast<uint32_t>(&stream - pool_.data()), stream.id);
  }
  return absl::OkStatus();
}

void Http3ServerSession::Reset(int64_t stream_id, uint32_t handle, uint64_t code) {
  if (StreamOf(stream_id, PoolData(handle)) == nullptr) return;
  nghttp3_conn_shutdown_stream_write(conn_, stream_id);
  events_->OnStreamShutdown(stream_id, code);
}

void Http3ServerSession::CutPartialAnswers() {
  for (auto [index, stream_id] : cut_due_) Reset(stream_id, index, kH3InternalError);
  cut_due_.clear();
}

absl::Status Http3ServerSession::GoAway() {
  int rv = nghttp3_conn_shutdown(conn_);
  if (rv != 0) return Failed(rv);
  return absl::OkStatus();
}

Http3ServerSession::Stream* Http3ServerSession::StreamOf(int64_t stream_id, void* data) {
  if (data == nullptr || PoolIndex(data) >= pool_.size()) return nullptr;
  Stream& stream = pool_[PoolIndex(data)];
  return stream.id == stream_id ? &stream : nullptr;
}

}  // namespace uringload::proto
