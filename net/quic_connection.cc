#include "net/quic_connection.h"

#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/base/status_macros.h"

namespace uringload::net {
namespace {

// The largest UDP payload this side sends: 1,500-byte Ethernet less IPv6 and UDP headers,
// what ngtcp2 and quic-go send at most without path MTU discovery.
constexpr size_t kMaxPacket = kQuicMaxPacket;
constexpr size_t kConnectionIdLength = 18;
constexpr size_t kMaxVecs = 16;

void Random(uint8_t* dest, size_t length) {
  // GnuTLS's generator: no syscall per call once seeded.
  URINGLOAD_CHECK(gnutls_rnd(GNUTLS_RND_RANDOM, dest, length) == 0, "gnutls_rnd failed");
}

void RandomCallback(uint8_t* dest, size_t length, const ngtcp2_rand_ctx* /*context*/) {
  Random(dest, length);
}

int NewConnectionIdCallback(ngtcp2_conn* /*conn*/, ngtcp2_cid* cid, uint8_t* token, size_t length,
                            void* /*self*/) {
  Random(cid->data, length);
  cid->datalen = length;
  Random(token, NGTCP2_STATELESS_RESET_TOKENLEN);
  return 0;
}

ngtcp2_conn* ConnOf(ngtcp2_crypto_conn_ref* ref) {
  return *static_cast<ngtcp2_conn**>(ref->user_data);
}

ngtcp2_path MakePath(const QuicPath& path) {
  ngtcp2_path p{};
  p.local.addr = const_cast<sockaddr*>(reinterpret_cast<const sockaddr*>(&path.local));
  p.local.addrlen = path.local_length;
  p.remote.addr = const_cast<sockaddr*>(reinterpret_cast<const sockaddr*>(&path.remote));
  p.remote.addrlen = path.remote_length;
  return p;
}

}  // namespace

absl::StatusOr<std::unique_ptr<QuicConnection>> QuicConnection::Client(
    const QuicTlsContext& tls, const QuicPath& path, std::string server_name,
    const QuicSettings& settings, Events* events, int64_t now_ns, std::span<const uint8_t> resume,
    std::span<const uint8_t> early_params) {
  URINGLOAD_CHECK(!tls.server(), "a client connection from a server context");
  std::unique_ptr<QuicConnection> self(new QuicConnection());
  self->path_ = path;
  self->server_name_ = std::move(server_name);
  self->events_ = events;
  absl::Status started = self->Start(tls, false, settings, now_ns, {}, resume, early_params);
  if (!started.ok()) return started;
  return self;
}

absl::StatusOr<std::unique_ptr<QuicConnection>> QuicConnection::Server(
    const QuicTlsContext& tls, const QuicPath& path, std::span<const uint8_t> initial,
    const QuicSettings& settings, Events* events, int64_t now_ns) {
  URINGLOAD_CHECK(tls.server(), "a server connection from a client context");
  std::unique_ptr<QuicConnection> self(new QuicConnection());
  self->path_ = path;
  self->events_ = events;
  absl::Status started = self->Start(tls, true, settings, now_ns, initial, {}, {});
  if (!started.ok()) return started;
  return self;
}

absl::Status QuicConnection::ReceiveInitial(std::span<const uint8_t> initial, int64_t now_ns) {
  if (Receive(initial, now_ns)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("client Initial: ", end_reason_));
}

absl::StatusOr<std::unique_ptr<QuicConnection>> QuicConnection::Accept(
    const QuicTlsContext& tls, const QuicPath& path, std::span<const uint8_t> initial,
    const QuicSettings& settings, Events* events, int64_t now_ns) {
  absl::StatusOr<std::unique_ptr<QuicConnection>> self =
      Server(tls, path, initial, settings, events, now_ns);
  if (!self.ok()) return self;
  URINGLOAD_RETURN_IF_ERROR((*self)->ReceiveInitial(initial, now_ns));
  return self;
}

absl::Status QuicConnection::Start(const QuicTlsContext& tls, bool server,
                                   const QuicSettings& settings, int64_t now_ns,
                                   std::span<const uint8_t> initial,
                                   std::span<const uint8_t> resume,
                                   std::span<const uint8_t> early_params) {
  ngtcp2_callbacks callbacks{};
  if (server) {
    callbacks.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb;
  } else {
    callbacks.client_initial = ngtcp2_crypto_client_initial_cb;
    callbacks.recv_retry = ngtcp2_crypto_recv_retry_cb;
  }
  callbacks.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
  callbacks.encrypt = ngtcp2_crypto_encrypt_cb;
  callbacks.decrypt = ngtcp2_crypto_decrypt_cb;
  callbacks.hp_mask = ngtcp2_crypto_hp_mask_cb;
  callbacks.update_key = ngtcp2_crypto_update_key_cb;
  callbacks.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
  callbacks.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
  callbacks.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
  callbacks.version_negotiation = ngtcp2_crypto_version_negotiation_cb;
  callbacks.rand = RandomCallback;
  callbacks.get_new_connection_id = NewConnectionIdCallback;
  callbacks.handshake_completed = OnHandshakeCompletedCallback;
  callbacks.recv_stream_data = OnStreamDataCallback;
  callbacks.acked_stream_data_offset = OnAckedCallback;
  callbacks.stream_close = OnStreamCloseCallback;
  callbacks.extend_max_local_streams_bidi = OnExtendStreamsCallback;
  callbacks.extend_max_stream_data = OnExtendStreamDataCallback;
  callbacks.recv_stateless_reset = OnStatelessResetCallback;

  ngtcp2_settings s;
  ngtcp2_settings_default(&s);
  s.initial_ts = static_cast<ngtcp2_tstamp>(now_ns);
  s.max_tx_udp_payload_size = kMaxPacket;
  s.handshake_timeout = static_cast<ngtcp2_duration>(settings.handshake_timeout_ns);
  // ngtcp2 0.12's API gives out no count of lost packets; its qlog names each one it declares
  // lost, and the connection reads its own qlog for that one event (QlogCallback).
  s.qlog.write = QlogCallback;
  ngtcp2_transport_params params;
  ngtcp2_transport_params_default(&params);
  params.initial_max_streams_bidi = settings.max_streams_bidi;
  params.initial_max_streams_uni = 3;  // HTTP/3's control and QPACK streams.
  params.initial_max_stream_data_bidi_local = settings.stream_window;
  params.initial_max_stream_data_bidi_remote = settings.stream_window;
  params.initial_max_stream_data_uni = settings.stream_window;
  params.initial_max_data = settings.connection_window;
  params.max_idle_timeout = static_cast<ngtcp2_duration>(settings.idle_timeout_ns);

  ngtcp2_cid source_id;
  source_id.datalen = kConnectionIdLength;
  Random(source_id.data, source_id.datalen);
  ngtcp2_path path = MakePath(path_);
  int rv;
  if (server) {
    ngtcp2_pkt_hd header;
    rv = ngtcp2_accept(&header, initial.data(), initial.size());
    if (rv != 0) return absl::InvalidArgumentError("not a QUIC client Initial");
    params.original_dcid = header.dcid;
    s.qlog.odcid = header.dcid;
    params.stateless_reset_token_present = 1;
    static_assert(sizeof(params.stateless_reset_token) == sizeof(reset_token_));
    Random(reset_token_.data(), reset_token_.size());
    memcpy(params.stateless_reset_token, reset_token_.data(), reset_token_.size());
    rv = ngtcp2_conn_server_new(&conn_, &header.scid, &source_id, &path, header.version, &callbacks,
                                &s, &params, nullptr, this);
  } else {
    ngtcp2_cid destination_id;
    destination_id.datalen = kConnectionIdLength;
    Random(destination_id.data, destination_id.datalen);
    s.qlog.odcid = destination_id;
    rv = ngtcp2_conn_client_new(&conn_, &destination_id, &source_id, &path, NGTCP2_PROTO_VER_V1,
                                &callbacks, &s, &params, nullptr, this);
  }
  if (rv != 0) return absl::InternalError(absl::StrCat("ngtcp2: ", ngtcp2_strerror(rv)));
  ref_ = std::make_unique<ngtcp2_crypto_conn_ref>();
  ref_->get_conn = ConnOf;
  ref_->user_data = &conn_;
  URINGLOAD_ASSIGN_OR_RETURN(gnutls_session_t session, tls.NewSession(ref_.get(), server_name_));
  session_ = session;
  ngtcp2_conn_set_tls_native_handle(conn_, session_);
  // A ticket GnuTLS does not take (expired, another server's) means a full handshake.
  if (!resume.empty()) gnutls_session_set_data(session_, resume.data(), resume.size());
  if (!resume.empty() && early_params.size() == sizeof(ngtcp2_transport_params)) {
    ngtcp2_transport_params early;
    memcpy(&early, early_params.data(), sizeof(early));
    ngtcp2_conn_set_early_remote_transport_params(conn_, &early);
    early_data_attempted_ = true;
  }
  return absl::OkStatus();
}

QuicConnection::~QuicConnection() {
  if (conn_ != nullptr) ngtcp2_conn_del(conn_);
  if (session_ != nullptr) gnutls_deinit(session_);
}

bool QuicConnection::Fail(int code, QuicEnd end) {
  if (end_ != QuicEnd::kOpen) return false;
  end_ = end;
  error_ = code;
  end_reason_ = ngtcp2_strerror(code);
  if (code == NGTCP2_ERR_CRYPTO) {
    int alert = ngtcp2_conn_get_tls_alert(conn_);
    end_reason_ = absl::StrCat(
        "TLS alert: ", gnutls_alert_get_strname(static_cast<gnutls_alert_description_t>(alert)));
    // GnuTLS says why a certificate failed verification.
    if (alert == GNUTLS_A_BAD_CERTIFICATE || alert == GNUTLS_A_UNKNOWN_CA) {
      unsigned status = gnutls_session_get_verify_cert_status(session_);
      gnutls_datum_t text{};
      if (status != 0 &&
          gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) == 0) {
        absl::StrAppend(&end_reason_, " (", reinterpret_cast<const char*>(text.data), ")");
        gnutls_free(text.data);
      }
    }
  }
  return false;
}

bool QuicConnection::Receive(std::span<const uint8_t> datagram, int64_t now_ns) {
  if (end_ != QuicEnd::kOpen) return false;
  ngtcp2_path path = MakePath(path_);
  ngtcp2_pkt_info info{};
  int rv = ngtcp2_conn_read_pkt(conn_, &path, &info, datagram.data(), datagram.size(),
                                static_cast<ngtcp2_tstamp>(now_ns));
  if (rv == 0) return true;
  if (rv == NGTCP2_ERR_DRAINING && stateless_reset_) {
    Fail(rv, QuicEnd::kStatelessReset);
    end_reason_ = "stateless reset";
    return false;
  }
  if (rv == NGTCP2_ERR_DRAINING || rv == NGTCP2_ERR_CLOSING) {
    Fail(rv, QuicEnd::kClosedByPeer);
    ngtcp2_connection_close_error error;
    ngtcp2_conn_get_connection_close_error(conn_, &error);
    peer_error_code_ = error.error_code;
    peer_error_is_application_ = error.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION;
    end_reason_ = absl::StrCat("CONNECTION_CLOSE with ",
                               error.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION
                                   ? "application"
                                   : "transport",
                               " error ", error.error_code);
    return false;
  }
  return Fail(rv, QuicEnd::kError);
}

int64_t QuicConnection::WritePacket(std::span<uint8_t> out, int64_t now_ns) {
  ngtcp2_path path = MakePath(path_);
  ngtcp2_pkt_info info{};
  for (;;) {
    QuicVec vecs[kMaxVecs];
    size_t count = 0;
    bool fin = false;
    int64_t stream = -1;
    if (source_ != nullptr) stream = source_->NextStreamData(vecs, &count, &fin);
    uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;
    if (fin) flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
    ngtcp2_ssize taken = -1;
    ngtcp2_ssize n = ngtcp2_conn_writev_stream(
        conn_, &path, &info, out.data(), out.size(), &taken, flags, stream,
        reinterpret_cast<const ngtcp2_vec*>(vecs), count, static_cast<ngtcp2_tstamp>(now_ns));
    if (n >= 0) {
      if (taken >= 0 && stream >= 0) source_->Consumed(stream, static_cast<size_t>(taken));
      return n;
    }
    switch (n) {
      case NGTCP2_ERR_STREAM_DATA_BLOCKED:
      case NGTCP2_ERR_STREAM_SHUT_WR:
        source_->Blocked(stream);
        continue;
      case NGTCP2_ERR_WRITE_MORE:  // The packet has room for another stream's data.
        source_->Consumed(stream, static_cast<size_t>(taken));
        continue;
      default:
        Fail(static_cast<int>(n), QuicEnd::kError);
        return 0;
    }
  }
}

size_t QuicConnection::Write(std::span<uint8_t> out, int64_t now_ns, uint32_t* datagram_size) {
  URINGLOAD_CHECK(out.size() >= kMaxPacket, "a QUIC write into %zu bytes", out.size());
  *datagram_size = 0;
  if (end_ == QuicEnd::kError && !close_sent_ && forgotten_) {
    close_sent_ = true;
    // As long as a short-header packet to this side's connection id would be (RFC 9000
    // 10.3): the client cannot tell it from one before it finds the token at its end.
    uint8_t random[1 + kConnectionIdLength + 24];
    Random(random, sizeof(random));
    ngtcp2_ssize n = ngtcp2_pkt_write_stateless_reset(out.data(), out.size(), reset_token_.data(),
                                                      random, sizeof(random));
    if (n <= 0) return 0;
    *datagram_size = static_cast<uint32_t>(n);
    return static_cast<size_t>(n);
  }
  if (end_ == QuicEnd::kError && !close_sent_) {
    close_sent_ = true;
    ngtcp2_connection_close_error error;
    if (application_close_) {
      ngtcp2_connection_close_error_set_application_error(&error, application_error_, nullptr, 0);
    } else if (error_ == NGTCP2_ERR_CRYPTO) {
      ngtcp2_connection_close_error_set_transport_error_tls_alert(
          &error, ngtcp2_conn_get_tls_alert(conn_), nullptr, 0);
    } else {
      ngtcp2_connection_close_error_set_transport_error_liberr(&error, error_, nullptr, 0);
    }
    ngtcp2_path path = MakePath(path_);
    ngtcp2_pkt_info info{};
    ngtcp2_ssize n = ngtcp2_conn_write_connection_close(conn_, &path, &info, out.data(), kMaxPacket,
                                                        &error, static_cast<ngtcp2_tstamp>(now_ns));
    if (n <= 0) return 0;
    *datagram_size = static_cast<uint32_t>(n);
    return static_cast<size_t>(n);
  }
  if (end_ != QuicEnd::kOpen) return 0;
  size_t at = 0;
  if (held_length_ > 0) {  // A packet that did not fit the last run goes first.
    memcpy(out.data(), held_.get(), held_length_);
    at = *datagram_size = static_cast<uint32_t>(held_length_);
    held_length_ = 0;
  }
  size_t packets = at > 0 ? 1 : 0;
  size_t packet_room = std::min(out.size(), kMaxPacket);
  while (packets < 64 && at + packet_room <= out.size()) {
    int64_t n = WritePacket(out.subspan(at, packet_room), now_ns);
    if (n <= 0) break;
    if (packets == 0) *datagram_size = static_cast<uint32_t>(n);
    if (static_cast<uint32_t>(n) > *datagram_size) {
      // Longer than the run's datagrams: it cannot end this run; it starts the next one. Its
      // room is made the first time (most connections never need it).
      if (held_ == nullptr) held_ = std::make_unique_for_overwrite<uint8_t[]>(kMaxPacket);
      memcpy(held_.get(), out.data() + at, static_cast<size_t>(n));
      held_length_ = static_cast<size_t>(n);
      break;
    }
    at += static_cast<size_t>(n);
    ++packets;
    if (static_cast<uint32_t>(n) < *datagram_size) break;  // A shorter one ends the run.
  }
  // Paced once the handshake has measured the path: before, ngtcp2 0.12 paces by its initial
  // RTT of 333 ms, and the client's Finished would wait 22 ms behind its Initial.
  if (handshake_completed()) {
    ngtcp2_conn_update_pkt_tx_time(conn_, static_cast<ngtcp2_tstamp>(now_ns));
  }
  if (at == 0) *datagram_size = 0;
  return at;
}

int64_t QuicConnection::expiry_ns() const {
  ngtcp2_tstamp expiry = ngtcp2_conn_get_expiry(conn_);
  return expiry >= static_cast<ngtcp2_tstamp>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(expiry);
}

bool QuicConnection::HandleExpiry(int64_t now_ns) {
  if (end_ != QuicEnd::kOpen) return false;
  int rv = ngtcp2_conn_handle_expiry(conn_, static_cast<ngtcp2_tstamp>(now_ns));
  if (rv == 0) return true;
  return Fail(rv, rv == NGTCP2_ERR_IDLE_CLOSE || rv == NGTCP2_ERR_HANDSHAKE_TIMEOUT
                      ? QuicEnd::kIdleTimeout
                      : QuicEnd::kError);
}

int64_t QuicConnection::OpenStream() {
  int64_t id = -1;
  return ngtcp2_conn_open_bidi_stream(conn_, &id, nullptr) == 0 ? id : -1;
}

void QuicConnection::CloseWithApplicationError(uint64_t app_error_code, std::string reason) {
  if (end_ != QuicEnd::kOpen) return;
  end_ = QuicEnd::kError;
  application_close_ = true;
  application_error_ = app_error_code;
  end_reason_ = std::move(reason);
}

void QuicConnection::Forget(std::string reason) {
  URINGLOAD_CHECK(ngtcp2_conn_is_server(conn_), "only a server forgets a connection");
  if (end_ != QuicEnd::kOpen) return;
  end_ = QuicEnd::kError;
  forgotten_ = true;
  end_reason_ = std::move(reason);
}

int64_t QuicConnection::OpenUniStream() {
  int64_t id = -1;
  return ngtcp2_conn_open_uni_stream(conn_, &id, nullptr) == 0 ? id : -1;
}

void QuicConnection::ShutdownStream(int64_t id, uint64_t app_error_code) {
  ngtcp2_conn_shutdown_stream(conn_, id, app_error_code);
}

bool QuicConnection::handshake_completed() const {
  return ngtcp2_conn_get_handshake_completed(conn_) != 0;
}

uint64_t QuicConnection::streams_bidi_left() const {
  return ngtcp2_conn_get_streams_bidi_left(conn_);
}

}  // namespace uringload::net
