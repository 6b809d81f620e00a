// QuicTlsContext: GnuTLS set up for QUIC through ngtcp2's crypto helper
// (libngtcp2-crypto-gnutls: the only QUIC crypto Debian 12 packages, OpenSSL 3.0 having no
// QUIC API). A context holds what every connection of a run shares (credentials, priorities,
// ALPN, the server's ticket key); each QUIC connection makes its own GnuTLS session from it.
// Only this file and quic_connection.cc see GnuTLS: a later ngtcp2 1.x or OpenSSL 3.5 is a
// change here and there, nowhere else.
#pragma once

#include <gnutls/gnutls.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct ngtcp2_crypto_conn_ref;

namespace uringload::net {

struct QuicTlsClientOptions {
  bool verify = true;   // Check the server's certificate and name (-k turns it off).
  std::string ca_file;  // PEM certificates to trust; empty: the system's store.
};

struct QuicTlsServerOptions {
  std::string cert_file;  // PEM chain.
  std::string key_file;   // PEM private key.
};

class QuicTlsContext {
 public:
  static absl::StatusOr<std::unique_ptr<QuicTlsContext>> Client(
      const QuicTlsClientOptions& options);
  static absl::StatusOr<std::unique_ptr<QuicTlsContext>> Server(
      const QuicTlsServerOptions& options);
  ~QuicTlsContext();
  QuicTlsContext(const QuicTlsContext&) = delete;
  QuicTlsContext& operator=(const QuicTlsContext&) = delete;

  bool server() const { return server_; }
  // A GnuTLS session for one QUIC connection, wired to ngtcp2 through `ref`, offering or
  // accepting ALPN "h3". A client names `server_name` (SNI unless it is an address literal,
  // and the name its certificate must carry when verifying), which must outlive the session.
  absl::StatusOr<gnutls_session_t> NewSession(ngtcp2_crypto_conn_ref* ref,
                                              const std::string& server_name) const;

 private:
  QuicTlsContext() = default;
  absl::Status InitPriorities();

  bool server_ = false;
  bool verify_ = true;
  gnutls_priority_t priorities_ = nullptr;  // Shared by the sessions (TLS 1.3, QUIC's AEADs).
  gnutls_certificate_credentials_t credentials_ = nullptr;
  gnutls_datum_t ticket_key_{};  // Server: session tickets for resumption.
  // Server: 0-RTT needs GnuTLS's anti-replay; its store takes every ClientHello (a load
  // target, not a bank: a replayed request is one more request).
  gnutls_anti_replay_t anti_replay_ = nullptr;
};

}  // namespace uringload::net
