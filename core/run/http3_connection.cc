#include "core/run/http3_connection.h"

#include "net/base/status_macros.h"

namespace uringload::core {
absl::Status Http3Connection::Start(const net::QuicTlsContext& tls, const net::QuicPath& path,
                                    std::string server_name, const net::QuicSettings& settings,
                                    Events* events, int64_t now_ns, std::span<const uint8_t> resume,
                                    std::span<const uint8_t> early_params) {
  events_ = events;
  early_rejected_ = false;
  session_.Stop();
  URINGLOAD_ASSIGN_OR_RETURN(
      std::unique_ptr<net::QuicConnection> quic,
      net::QuicConnection::Client(tls, path, std::move(server_name), settings, quic_events(),
                                  now_ns, resume, early_params));
  Attach(std::move(quic));
  if (quic_->early_data_attempted()) StartStreams();  // 0-RTT: requests may go at once.
  return absl::OkStatus();
}

bool Http3Connection::can_open() const {
  return quic_ != nullptr && quic_->end() == net::QuicEnd::kOpen && session_.started() &&
         session_.can_open();
}

bool Http3Connection::ready() const {
  return quic_ != nullptr && quic_->end() == net::QuicEnd::kOpen && session_.started();
}

uint64_t Http3Connection::streams_left() const {
  return can_open() ? quic_->streams_bidi_left() : 0;
}

absl::Status Http3Connection::Submit(const proto::RequestTemplate& request,
                                     const proto::TemplateContext& context, uint32_t tag) {
  int64_t id = quic_->OpenStream();
  if (id < 0) return absl::ResourceExhaustedError("the server allows no more streams now");
  return session_.Submit(request, context, tag, id);
}

void Http3Connection::CloseGracefully() {
  if (quic_ != nullptr) quic_->CloseWithApplicationError(proto::kH3NoError, "closed by the client");
}

void Http3Connection::Stop() {
  session_.Stop();
  quic_.reset();
}

absl::Status Http3Connection::StartHttp3(int64_t control_stream, int64_t qpack_encoder_stream,
                                         int64_t qpack_decoder_stream) {
  if (absl::Status s =
          session_.Start(this, control_stream, qpack_encoder_stream, qpack_decoder_stream);
      !s.ok()) {
    return s;
  }
  if (early_rejected_) {
    early_rejected_ = false;
    events_->OnEarlyDataRejected();
  } else {
    events_->OnReady();
  }
  return absl::OkStatus();
}

void Http3Connection::OnEarlyDataRejected() {
  session_.Stop();
  early_rejected_ = true;
}

void Http3Connection::OnStreamEnd(const proto::StreamEnd& end) { events_->OnStreamEnd(end); }

void Http3Connection::OnStreamShutdown(int64_t id, uint64_t code) {
  quic_->ShutdownStream(id, code);
}

}  // namespace uringload::core
