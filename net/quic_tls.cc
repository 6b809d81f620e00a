#include "net/quic_tls.h"

#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "net/address.h"
#include "net/base/status_macros.h"

namespace uringload::net {
namespace {

// TLS 1.3 only (QUIC has no other), its AEADs and the usual groups; no middlebox
// compatibility mode, which QUIC forbids.
constexpr char kPriorities[] =
    "%DISABLE_TLS13_COMPAT_MODE:NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:"
    "+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-CCM:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:"
    "+GROUP-SECP384R1:+GROUP-SECP521R1";

gnutls_datum_t kAlpnH3 = {
    .data = const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>("h3")), .size = 2};

absl::Status GnutlsError(const char* what, int code) {
  return absl::UnavailableError(absl::StrCat(what, ": ", gnutls_strerror(code)));
}

}  // namespace

// One priority cache for every session of the context: gnutls_priority_set_direct made one per
// session (8.3 KB of heap each, measured with massif at 300 connections).
absl::Status QuicTlsContext::InitPriorities() {
  int rv = gnutls_priority_init(&priorities_, kPriorities, nullptr);
  if (rv != 0) return GnutlsError("GnuTLS priorities", rv);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<QuicTlsContext>> QuicTlsContext::Client(
    const QuicTlsClientOptions& options) {
  std::unique_ptr<QuicTlsContext> self(new QuicTlsContext());
  self->verify_ = options.verify;
  URINGLOAD_RETURN_IF_ERROR(self->InitPriorities());
  int rv = gnutls_certificate_allocate_credentials(&self->credentials_);
  if (rv != 0) return GnutlsError("QUIC TLS credentials", rv);
  if (options.verify) {
    rv = options.ca_file.empty()
             ? gnutls_certificate_set_x509_system_trust(self->credentials_)
             : gnutls_certificate_set_x509_trust_file(self->credentials_, options.ca_file.c_str(),
                                                      GNUTLS_X509_FMT_PEM);
    // Both return how many certificates they loaded.
    if (rv <= 0) {
      return absl::InvalidArgumentError(
          options.ca_file.empty()
              ? std::string("no trusted certificates in the system's store")
              : absl::StrCat("no certificates in ", options.ca_file,
                             rv < 0 ? absl::StrCat(": ", gnutls_strerror(rv)) : ""));
    }
  }
  return self;
}

absl::StatusOr<std::unique_ptr<QuicTlsContext>> QuicTlsContext::Server(
    const QuicTlsServerOptions& options) {
  std::unique_ptr<QuicTlsContext> self(new QuicTlsContext());
  self->server_ = true;
  URINGLOAD_RETURN_IF_ERROR(self->InitPriorities());
  int rv = gnutls_certificate_allocate_credentials(&self->credentials_);
  if (rv != 0) return GnutlsError("QUIC TLS credentials", rv);
  rv = gnutls_certificate_set_x509_key_file(self->credentials_, options.cert_file.c_str(),
                                            options.key_file.c_str(), GNUTLS_X509_FMT_PEM);
  if (rv != 0) {
    return absl::InvalidArgumentError(absl::StrCat("certificate ", options.cert_file, " with key ",
                                                   options.key_file, ": ", gnutls_strerror(rv)));
  }
  rv = gnutls_session_ticket_key_generate(&self->ticket_key_);
  if (rv != 0) return GnutlsError("QUIC session ticket key", rv);
  rv = gnutls_anti_replay_init(&self->anti_replay_);
  if (rv != 0) return GnutlsError("QUIC anti-replay", rv);
  gnutls_anti_replay_set_add_function(self->anti_replay_, [](void*, time_t, const gnutls_datum_t*,
                                                             const gnutls_datum_t*) { return 0; });
  return self;
}

QuicTlsContext::~QuicTlsContext() {
  if (priorities_ != nullptr) gnutls_priority_deinit(priorities_);
  if (credentials_ != nullptr) gnutls_certificate_free_credentials(credentials_);
  if (ticket_key_.data != nullptr) gnutls_free(ticket_key_.data);
  if (anti_replay_ != nullptr) gnutls_anti_replay_deinit(anti_replay_);
}

absl::StatusOr<gnutls_session_t> QuicTlsContext::NewSession(ngtcp2_crypto_conn_ref* ref,
                                                            const std::string& server_name) const {
  gnutls_session_t session = nullptr;
  unsigned flags = (server_ ? GNUTLS_SERVER : GNUTLS_CLIENT) | GNUTLS_ENABLE_EARLY_DATA |
                   GNUTLS_NO_END_OF_EARLY_DATA;
  int rv = gnutls_init(&session, flags);
  if (rv != 0) return GnutlsError("gnutls_init", rv);
  auto fail = [&](const char* what, int code) {
    gnutls_deinit(session);
    return GnutlsError(what, code);
  };
  rv = server_ ? ngtcp2_crypto_gnutls_configure_server_session(session)
               : ngtcp2_crypto_gnutls_configure_client_session(session);
  if (rv != 0) return fail("ngtcp2's GnuTLS hooks", GNUTLS_E_INTERNAL_ERROR);
  if ((rv = gnutls_priority_set(session, priorities_)) != 0) {
    return fail("GnuTLS priorities", rv);
  }
  if ((rv = gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, credentials_)) != 0) {
    return fail("GnuTLS credentials", rv);
  }
  gnutls_session_set_ptr(session, ref);
  if ((rv = gnutls_alpn_set_protocols(session, &kAlpnH3, 1, GNUTLS_ALPN_MANDATORY)) != 0) {
    return fail("ALPN h3", rv);
  }
  if (server_) {
    if ((rv = gnutls_session_ticket_enable_server(session, &ticket_key_)) != 0) {
      return fail("session tickets", rv);
    }
    // Its tickets allow 0-RTT; QUIC's early data has no size limit of TLS's (RFC 9001 4.6.1).
    gnutls_anti_replay_enable(session, anti_replay_);
    if ((rv = gnutls_record_set_max_early_data_size(session, 0xffffffffu)) != 0) {
      return fail("early data", rv);
    }
    return session;
  }
  if (!IsAddressLiteral(server_name) &&
      (rv = gnutls_server_name_set(session, GNUTLS_NAME_DNS, server_name.data(),
                                   server_name.size())) != 0) {
    return fail("SNI", rv);
  }
  // The name (or address) the certificate must carry; checked during the handshake.
  if (verify_) gnutls_session_set_verify_cert(session, server_name.c_str(), 0);
  return session;
}

}  // namespace uringload::net
