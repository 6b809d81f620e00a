#include "proto/http3_client_session.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/base/status_macros.h"

namespace uringload::proto {
namespace {

void* SlotData(uint32_t slot) { return reinterpret_cast<void*>(static_cast<uintptr_t>(slot) + 1); }
uint32_t SlotOf(void* data) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(data) - 1); }

nghttp3_nv Http3Field(const RequestField& f) {
  return {.name = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(f.name.data())),
          .value = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(f.value.data())),
          .namelen = f.name.size(),
          .valuelen = f.value.size(),
          // nghttp3 copies the fields into its QPACK encoder's output at once.
          .flags = static_cast<uint8_t>(NGHTTP3_NV_FLAG_NO_COPY_NAME |
                                        (f.fixed ? NGHTTP3_NV_FLAG_NO_COPY_VALUE : 0))};
}

}  // namespace

Http3ClientSession::Http3ClientSession(uint32_t streams) {
  // Twice the requests: a request's slot stays taken after its response until QUIC closes
  // the stream (its bytes acknowledged), while the tag already carries the next request.
  slots_.resize(2 * static_cast<size_t>(streams));
  slot_of_tag_.assign(streams, std::numeric_limits<uint32_t>::max());
}

Http3ClientSession::~Http3ClientSession() { Stop(); }

const nghttp3_callbacks* Http3ClientSession::Callbacks() {
  static const nghttp3_callbacks callbacks = [] {
    nghttp3_callbacks c{};
    c.stream_close = [](nghttp3_conn*, int64_t stream_id, uint64_t app_error_code, void* self,
                        void* data) {
      auto* session = static_cast<Http3ClientSession*>(self);
      if (Stream* stream = session->StreamOf(stream_id, data)) {
        session->End(*stream, app_error_code, false);
        stream->id = -1;
        session->free_slots_.push_back(SlotOf(data));
      }
      return 0;
    };
    c.recv_data = [](nghttp3_conn*, int64_t stream_id, const uint8_t* data, size_t length,
                     void* self, void* stream_data) {
      auto* session = static_cast<Http3ClientSession*>(self);
      Stream* stream = session->StreamOf(stream_id, stream_data);
      std::string_view piece(reinterpret_cast<const char*>(data), length);
      if (stream == nullptr) return 0;
      if (!stream->body_begun && length > 0) {
        stream->body_begun = true;
        session->events_->OnProgress(stream->tag, ResponseProgress::kFirstByte);
      }
      if (session->stream_bodies_) session->events_->OnBody(stream->tag, piece);
      if (session->inspector_ != nullptr) {
        session->inspector_->OnBody(piece);
      } else if (session->matcher_ != nullptr) {
        stream->body_state = session->matcher_->Feed(stream->body_state, piece);
      }
      return 0;
    };
    c.recv_header = [](nghttp3_conn*, int64_t stream_id, int32_t token, nghttp3_rcbuf* name,
                       nghttp3_rcbuf* value, uint8_t, void* self, void* stream_data) {
      auto* session = static_cast<Http3ClientSession*>(self);
      Stream* stream = session->StreamOf(stream_id, stream_data);
      if (stream == nullptr) return 0;
      nghttp3_vec v = nghttp3_rcbuf_get_buf(value);
      if (token != NGHTTP3_QPACK_TOKEN__STATUS) {
        if (session->inspector_ != nullptr) {
          nghttp3_vec n = nghttp3_rcbuf_get_buf(name);
          session->inspector_->OnHeaderName(
              std::string_view(reinterpret_cast<const char*>(n.base), n.len));
          session->inspector_->OnHeaderValue(
              std::string_view(reinterpret_cast<const char*>(v.base), v.len));
          session->inspector_->OnHeaderEnd();
        }
        return 0;
      }
      if (session->inspector_ != nullptr) session->inspector_->OnResponseBegin();
      int status = 0;
      for (size_t i = 0; i < v.len; ++i) status = status * 10 + (v.base[i] - '0');
      // An interim (1xx) response is followed by the final one, whose status is kept.
      stream->status = status;
      return 0;
    };
    c.end_headers = [](nghttp3_conn*, int64_t stream_id, int, void* self, void* stream_data) {
      auto* session = static_cast<Http3ClientSession*>(self);
      Stream* stream = session->StreamOf(stream_id, stream_data);
      // The final head (not an interim 1xx; trailers come with a final status already seen).
      if (stream != nullptr && stream->status >= 200 && !stream->head_reported) {
        stream->head_reported = true;
        session->events_->OnProgress(stream->tag, ResponseProgress::kHead);
      }
      return 0;
    };
    c.end_stream = [](nghttp3_conn*, int64_t stream_id, void* self, void* stream_data) {
      auto* session = static_cast<Http3ClientSession*>(self);
      if (Stream* stream = session->StreamOf(stream_id, stream_data)) {
        session->End(*stream, kH3NoError, true);
      }
      return 0;
    };
    c.stop_sending = [](nghttp3_conn*, int64_t stream_id, uint64_t code, void* self, void* data) {
      auto* session = static_cast<Http3ClientSession*>(self);
      Stream* stream = session->StreamOf(stream_id, data);
      if (stream != nullptr && code == kH3MessageError) stream->malformed = true;
      session->events_->OnStreamShutdown(stream_id, code);
      return 0;
    };
    c.reset_stream = c.stop_sending;
    c.shutdown = [](nghttp3_conn*, int64_t, void* self) {
      static_cast<Http3ClientSession*>(self)->going_away_ = true;
      return 0;
    };
    return c;
  }();
  return &callbacks;
}

absl::Status Http3ClientSession::Start(Events* events, int64_t control_stream,
                                       int64_t qpack_encoder_stream, int64_t qpack_decoder_stream) {
  Stop();
  events_ = events;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  int rv = nghttp3_conn_client_new(&conn_, Callbacks(), &settings, nghttp3_mem_default(), this);
  URINGLOAD_RETURN_IF_ERROR(Bind(rv, control_stream, qpack_encoder_stream, qpack_decoder_stream));
  free_slots_.clear();
  for (uint32_t slot = static_cast<uint32_t>(slots_.size()); slot-- > 0;) {
    slots_[slot].id = -1;
    free_slots_.push_back(slot);
  }
  open_requests_ = 0;
  going_away_ = false;
  return absl::OkStatus();
}

void Http3ClientSession::Stop() { Free(); }

absl::Status Http3ClientSession::Submit(const RequestTemplate& request,
                                        const TemplateContext& context, uint32_t tag,
                                        int64_t stream_id) {
  URINGLOAD_CHECK(can_open(), "an HTTP/3 request without a free slot");
  uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  slot_of_tag_.at(tag) = slot;
  Stream& stream = slots_[slot];
  std::string rendered_body = std::move(stream.rendered_body);  // Its capacity stays.
  stream = Stream{.request = &request, .id = stream_id, .tag = tag};
  stream.rendered_body = std::move(rendered_body);
  stream.body = request.BodyFor(context, stream.rendered_body);
  std::span<const RequestField> fields =
      layout_.LayOut(request, context,
                     request.has_body() ? std::optional<size_t>(stream.body.size()) : std::nullopt);
  nv_.clear();
  for (const RequestField& f : fields) nv_.push_back(Http3Field(f));
  nghttp3_data_reader body{.read_data = [](nghttp3_conn*, int64_t stream_id, nghttp3_vec* vec,
                                           size_t, uint32_t* flags, void* self,
                                           void* data) -> nghttp3_ssize {
    auto* session = static_cast<Http3ClientSession*>(self);
    Stream* stream = session->StreamOf(stream_id, data);
    *flags |= NGHTTP3_DATA_FLAG_EOF;
    if (stream == nullptr || stream->body_given) return 0;
    stream->body_given = true;
    vec[0].base = const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(stream->body.data()));
    vec[0].len = stream->body.size();
    return 1;
  }};
  int rv = nghttp3_conn_submit_request(conn_, stream_id, nv_.data(), nv_.size(),
                                       request.has_body() ? &body : nullptr, SlotData(slot));
  if (rv != 0) {
    stream.id = -1;
    free_slots_.push_back(slot);
    return absl::InternalError(absl::StrCat("nghttp3: ", nghttp3_strerror(rv)));
  }
  ++open_requests_;
  return absl::OkStatus();
}

void Http3ClientSession::Cancel(uint32_t tag) {
  uint32_t slot = slot_of_tag_.at(tag);
  if (slot == std::numeric_limits<uint32_t>::max()) return;
  Stream& stream = slots_[slot];
  if (stream.id < 0 || stream.tag != tag || stream.reported) return;
  stream.reported = true;
  --open_requests_;
  events_->OnStreamShutdown(stream.id, kH3RequestCancelled);
}

Http3ClientSession::Stream* Http3ClientSession::StreamOf(int64_t stream_id, void* data) {
  if (data == nullptr) return nullptr;
  Stream& stream = slots_[SlotOf(data)];
  return stream.id == stream_id ? &stream : nullptr;
}

void Http3ClientSession::End(Stream& stream, uint64_t error_code, bool complete) {
  if (stream.reported) return;
  stream.reported = true;
  --open_requests_;
  events_->OnStreamEnd({.tag = stream.tag,
                        .status = stream.status,
                        .error_code = error_code,
                        .complete = complete,
                        .malformed = stream.malformed,
                        .unprocessed = error_code == NGHTTP3_H3_REQUEST_REJECTED,
                        .reset = error_code != 0 && error_code != NGHTTP3_H3_NO_ERROR,
                        .body_found = stream.body_state == BodyMatcher::kFound});
}

}  // namespace uringload::proto
