// How ngtcp2's callbacks reach the caller: stream data, acknowledgements, closes and more
// streams become QuicConnection::Events, flow control StreamSource's, and a stateless reset or
// a lost packet (from the connection's own qlog) its state (QuicConnection's events half; the
// packets are quic_connection.cc's, the TLS session quic_connection_session.cc's).
#include <ngtcp2/ngtcp2.h>

#include <string_view>

#include "net/quic_connection.h"

namespace uringload::net {

void QuicConnection::QlogCallback(void* self, uint32_t /*flags*/, const void* data, size_t length) {
  static constexpr std::string_view kLost = "\"recovery:packet_lost\"";
  std::string_view event(static_cast<const char*>(data), length);
  if (event.find(kLost) != std::string_view::npos)
    ++static_cast<QuicConnection*>(self)->packets_lost_;
}

int QuicConnection::OnHandshakeCompletedCallback(ngtcp2_conn* /*conn*/, void* self) {
  static_cast<QuicConnection*>(self)->events_->OnHandshakeCompleted();
  return 0;
}

int QuicConnection::OnStreamDataCallback(ngtcp2_conn* conn, uint32_t flags, int64_t id,
                                         uint64_t /*offset*/, const uint8_t* data, size_t length,
                                         void* self, void* /*stream*/) {
  static_cast<QuicConnection*>(self)->events_->OnStreamData(
      id, std::span<const uint8_t>(data, length), (flags & NGTCP2_STREAM_DATA_FLAG_FIN) != 0);
  // Consumed at once: the peer may send as much again.
  ngtcp2_conn_extend_max_stream_offset(conn, id, length);
  ngtcp2_conn_extend_max_offset(conn, length);
  return 0;
}

int QuicConnection::OnAckedCallback(ngtcp2_conn* /*conn*/, int64_t id, uint64_t offset,
                                    uint64_t length, void* self, void* /*stream*/) {
  static_cast<QuicConnection*>(self)->events_->OnStreamDataAcked(id, offset, length);
  return 0;
}

int QuicConnection::OnStreamCloseCallback(ngtcp2_conn* conn, uint32_t /*flags*/, int64_t id,
                                          uint64_t app_error_code, void* self, void* /*stream*/) {
  // A stream the peer opened is done: it may open another (MAX_STREAMS). ngtcp2 leaves that
  // credit to the application.
  if (!ngtcp2_conn_is_local_stream(conn, id)) {
    if (ngtcp2_is_bidi_stream(id)) {
      ngtcp2_conn_extend_max_streams_bidi(conn, 1);
    } else {
      ngtcp2_conn_extend_max_streams_uni(conn, 1);
    }
  }
  static_cast<QuicConnection*>(self)->events_->OnStreamClosed(id, app_error_code);
  return 0;
}

int QuicConnection::OnExtendStreamsCallback(ngtcp2_conn* /*conn*/, uint64_t /*max_streams*/,
                                            void* self) {
  static_cast<QuicConnection*>(self)->events_->OnStreamsAvailable();
  return 0;
}

int QuicConnection::OnStatelessResetCallback(ngtcp2_conn* /*conn*/,
                                             const ngtcp2_pkt_stateless_reset* /*sr*/, void* self) {
  static_cast<QuicConnection*>(self)->stateless_reset_ = true;
  return 0;
}

int QuicConnection::OnExtendStreamDataCallback(ngtcp2_conn* /*conn*/, int64_t id,
                                               uint64_t /*max_data*/, void* self,
                                               void* /*stream*/) {
  auto* connection = static_cast<QuicConnection*>(self);
  if (connection->source_ != nullptr) connection->source_->Unblocked(id);
  return 0;
}

}  // namespace uringload::net
