#include "net/tls_context.h"

#include <openssl/err.h>
#include <openssl/opensslv.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <sstream>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "net/tls_errors.h"
#include "net/tls_event_loop.h"

namespace uringload::net {
namespace {

// The most recent OpenSSL error's reason, and the queue emptied.
std::string LastError() {
  unsigned long code = ERR_peek_last_error();
  std::string text =
      code != 0 ? ERR_reason_error_string(code) ? ERR_reason_error_string(code) : "unknown error"
                : "unknown error";
  ERR_clear_error();
  return text;
}

absl::Status Fail(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", LastError()));
}

// OpenSSL parses a certificate's extensions on first use, behind an unlocked "done" check;
// doing it here for every trusted certificate keeps the workers' verifications read-only
// on the store they share (TSan saw two workers race on a CA's key id).
void CacheTrustedCertificateExtensions(SSL_CTX* ctx) {
  STACK_OF(X509_OBJECT)* objects = X509_STORE_get0_objects(SSL_CTX_get_cert_store(ctx));
  for (int i = 0; i < sk_X509_OBJECT_num(objects); ++i) {
    X509* cert = X509_OBJECT_get0_X509(sk_X509_OBJECT_value(objects, i));
    if (cert != nullptr) X509_check_purpose(cert, -1, 0);
  }
}

// An idle connection keeps no record buffers (about 34 KB each otherwise). Reading ahead
// takes all that arrived into the SSL's buffer at once instead of a record's header and body
// apart: 3 to 4% fewer instructions per request (docs/performance.md).
void UseBuffers(SSL_CTX* ctx) {
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_read_ahead(ctx, 1);
}

// The server's ALPN choices, in its order of preference.
constexpr std::string_view kServerAlpn = "\x08http/1.1";
constexpr std::string_view kServerAlpnHttp2 = "\x02h2\x08http/1.1";

int SelectAlpn(SSL*, const unsigned char** out, unsigned char* out_len, const unsigned char* in,
               unsigned int in_len, void* arg) {
  const auto* ours = static_cast<const std::string_view*>(arg);
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(
          &selected, out_len, reinterpret_cast<const unsigned char*>(ours->data()),
          static_cast<unsigned>(ours->size()), in, in_len) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;  // None of ours offered: go on without ALPN.
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

std::string TlsCauseText(int code) {
  if (code >= kTlsVerifyBase && code < kTlsVerifyBase + kTlsVerifyCodes) {
    return absl::StrCat("certificate verify failed: ",
                        X509_verify_cert_error_string(code - kTlsVerifyBase));
  }
  switch (code) {
    case kTlsHandshakeFailed:
      return "TLS handshake failed";
    case kTlsNoCloseNotify:
      return "TLS connection closed without close_notify";
    case kTlsRecordError:
      return "TLS record error";
    case kTlsNoHttp2:
      return "the server did not agree to h2 by ALPN (--http2)";
    default:
      return "TLS error";
  }
}

absl::StatusOr<std::shared_ptr<TlsContext>> TlsContext::Client(const TlsClientOptions& options) {
  auto tls = std::make_shared<TlsContext>();
  tls->ctx_.reset(SSL_CTX_new(TLS_client_method()));
  if (tls->ctx_ == nullptr) return Fail("TLS");
  SSL_CTX* ctx = tls->ctx_.get();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (options.max_version.has_value()) {
    const std::string& v = *options.max_version;
    if (v != "1.2" && v != "1.3") {
      return absl::InvalidArgumentError(
          absl::StrCat("--tls-max-version must be 1.2 or 1.3, got '", v, "'"));
    }
    SSL_CTX_set_max_proto_version(ctx, v == "1.2" ? TLS1_2_VERSION : TLS1_3_VERSION);
  }
  if (options.ciphers.has_value() && SSL_CTX_set_cipher_list(ctx, options.ciphers->c_str()) != 1) {
    return Fail(absl::StrCat("--ciphers '", *options.ciphers, "'"));
  }
  if (options.ciphersuites.has_value() &&
      SSL_CTX_set_ciphersuites(ctx, options.ciphersuites->c_str()) != 1) {
    return Fail(absl::StrCat("--ciphersuites '", *options.ciphersuites, "'"));
  }
  if (options.verify) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (options.cacert.has_value()) {
      if (!std::ifstream(*options.cacert).good()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--cacert '", *options.cacert, "': cannot be read"));
      }
      if (SSL_CTX_load_verify_locations(ctx, options.cacert->c_str(), nullptr) != 1) {
        return Fail(absl::StrCat("--cacert '", *options.cacert, "'"));
      }
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
      return Fail("the system's CA store");
    }
    CacheTrustedCertificateExtensions(ctx);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  std::string_view alpn = options.alpn == Alpn::kHttp1   ? std::string_view("\x08http/1.1")
                          : options.alpn == Alpn::kHttp2 ? std::string_view("\x02h2")
                                                         : std::string_view("\x02h2\x08http/1.1");
  SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(alpn.data()),
                          static_cast<unsigned>(alpn.size()));
  tls->requires_http2_ = options.alpn == Alpn::kHttp2;
  UseBuffers(ctx);
  // Sessions are kept by each TlsEventLoop (one per worker), not in OpenSSL's shared cache.
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
  SSL_CTX_sess_set_new_cb(ctx, &TlsEventLoop::OnNewSession);
  tls->resume_ = options.resume;
  if (!options.resume) SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  return tls;
}

absl::StatusOr<std::shared_ptr<TlsContext>> TlsContext::Server(const TlsServerOptions& options) {
  auto tls = std::make_shared<TlsContext>();
  tls->server_ = true;
  tls->ctx_.reset(SSL_CTX_new(TLS_server_method()));
  if (tls->ctx_ == nullptr) return Fail("TLS");
  SSL_CTX* ctx = tls->ctx_.get();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  for (const auto& [flag, path] :
       {std::pair{"--tls-cert", options.cert_file}, std::pair{"--tls-key", options.key_file}}) {
    if (!std::ifstream(path).good()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, " '", path, "': cannot be read"));
    }
  }
  if (SSL_CTX_use_certificate_chain_file(ctx, options.cert_file.c_str()) != 1) {
    return Fail(absl::StrCat("--tls-cert '", options.cert_file, "'"));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return Fail(absl::StrCat("--tls-key '", options.key_file, "'"));
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Fail("--tls-key does not match --tls-cert");
  }
  SSL_CTX_set_alpn_select_cb(
      ctx, &SelectAlpn,
      const_cast<std::string_view*>(options.http2 ? &kServerAlpnHttp2 : &kServerAlpn));
  UseBuffers(ctx);
  return tls;
}

bool KernelTlsAvailable() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_available_ulp");
  std::string ulp;
  while (in >> ulp) {
    if (ulp == "tls") return true;
  }
  return false;
}

std::string OpenSslVersion() { return OpenSSL_version(OPENSSL_VERSION); }

std::string OpenSslBuildVersion() { return OPENSSL_VERSION_TEXT; }

}  // namespace uringload::net
