// What a QUIC connection's TLS session says and keeps: the handshake's version, cipher and
// resumption, the ticket and transport parameters a later connection resumes with, and what
// became of 0-RTT (QuicConnection's TLS half; the packets are quic_connection.cc's).
#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>

#include "net/quic_connection.h"

namespace uringload::net {

bool QuicConnection::TakeSessionTicket(std::vector<uint8_t>* out) const {
  if ((gnutls_session_get_flags(session_) & GNUTLS_SFLAGS_SESSION_TICKET) == 0) return false;
  gnutls_datum_t data{};
  if (gnutls_session_get_data2(session_, &data) != 0) return false;
  out->assign(data.data, data.data + data.size);
  gnutls_free(data.data);
  return true;
}

bool QuicConnection::TakeEarlyParams(std::vector<uint8_t>* out) const {
  const ngtcp2_transport_params* params = ngtcp2_conn_get_remote_transport_params(conn_);
  if (params == nullptr || !handshake_completed()) return false;
  // The copy outlives this connection: its one pointer (the versions list, memory of this
  // connection's) goes; 0-RTT needs only the limits (RFC 9000 7.4.1).
  ngtcp2_transport_params kept = *params;
  kept.version_info_present = 0;
  kept.version_info = {};
  const auto* bytes = reinterpret_cast<const uint8_t*>(&kept);
  out->assign(bytes, bytes + sizeof(kept));
  return true;
}

bool QuicConnection::early_data_accepted() const {
  return early_data_attempted_ && (gnutls_session_get_flags(session_) & GNUTLS_SFLAGS_EARLY_DATA);
}

void QuicConnection::RejectEarlyData() { ngtcp2_conn_early_data_rejected(conn_); }

const char* QuicConnection::tls_version() const {
  const char* name = gnutls_protocol_get_name(gnutls_protocol_get_version(session_));
  return name != nullptr ? name : "";
}

const char* QuicConnection::tls_cipher() const {
  const char* name = gnutls_cipher_get_name(gnutls_cipher_get(session_));
  return name != nullptr ? name : "";
}

bool QuicConnection::tls_resumed() const { return gnutls_session_is_resumed(session_) != 0; }

}  // namespace uringload::net
