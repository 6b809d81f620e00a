#include "core/serve/http3_server_connection.h"

#include <memory>

#include "net/base/status_macros.h"

namespace uringload::core {
absl::Status Http3ServerConnection::Accept(const net::QuicTlsContext& tls,
                                           const net::QuicPath& path,
                                           std::span<const uint8_t> initial,
                                           const net::QuicSettings& settings, Events* events,
                                           int64_t now_ns) {
  events_ = events;
  max_streams_ = settings.max_streams_bidi;
  session_.Stop();
  URINGLOAD_ASSIGN_OR_RETURN(
      std::unique_ptr<net::QuicConnection> quic,
      net::QuicConnection::Server(tls, path, initial, settings, quic_events(), now_ns));
  Attach(std::move(quic));
  return quic_->ReceiveInitial(initial, now_ns);  // Its 0-RTT requests may come with it.
}

void Http3ServerConnection::Abort() {
  quic_->CloseWithApplicationError(proto::kH3InternalError, "the reset fault");
}

void Http3ServerConnection::Forget() { quic_->Forget("the no-close-notify fault"); }

void Http3ServerConnection::Stop() {
  session_.Stop();
  quic_.reset();
}

absl::Status Http3ServerConnection::StartHttp3(int64_t control_stream, int64_t qpack_encoder_stream,
                                               int64_t qpack_decoder_stream) {
  return session_.Start(this, control_stream, qpack_encoder_stream, qpack_decoder_stream,
                        max_streams_);
}

void Http3ServerConnection::OnRequest(const proto::Http3ServerSession::Request& request) {
  events_->OnRequest(request);
}

void Http3ServerConnection::OnStreamShutdown(int64_t id, uint64_t code) {
  quic_->ShutdownStream(id, code);
}

}  // namespace uringload::core
