// TlsContext: one OpenSSL SSL_CTX per process (RAII), configured for `run` (verification
// against the system store or --cacert, ALPN h2 and/or http/1.1, SNI, tickets for resumption,
// version and cipher limits) or for `serve` (a PEM certificate chain and key). Connections get
// their SSL objects from TlsEventLoop. SSL_MODE_RELEASE_BUFFERS frees a connection's record buffers
// while it is idle, so memory follows the connections that are busy.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace uringload::net {

// The application protocols a client offers by ALPN.
enum class Alpn : uint8_t {
  kHttp1,         // http/1.1 only (--http1.1).
  kHttp2OrHttp1,  // h2 and http/1.1: the server picks (the default).
  kHttp2,         // h2 only (--http2): a server that does not pick it fails the handshake.
};

struct TlsClientOptions {
  bool verify = true;  // -k turns it off.
  Alpn alpn = Alpn::kHttp1;
  std::optional<std::string> cacert = {};  // PEM file of trusted CAs instead of the system store.
  bool resume = true;                      // Offer the last session ticket on new connections.
  std::optional<std::string> max_version = {};   // "1.2" or "1.3".
  std::optional<std::string> ciphers = {};       // TLS 1.2 cipher list.
  std::optional<std::string> ciphersuites = {};  // TLS 1.3 suites.
};

struct TlsServerOptions {
  std::string cert_file;  // PEM chain.
  std::string key_file;   // PEM private key.
  bool http2 = false;     // ALPN: h2 when the client offers it, else http/1.1.
};

class TlsContext {
 public:
  // Errors name the flag and OpenSSL's reason ("--cacert 'x.pem': no certificate found").
  static absl::StatusOr<std::shared_ptr<TlsContext>> Client(const TlsClientOptions& options);
  static absl::StatusOr<std::shared_ptr<TlsContext>> Server(const TlsServerOptions& options);

  TlsContext() = default;
  SSL_CTX* get() const { return ctx_.get(); }
  bool server() const { return server_; }
  bool resume() const { return resume_; }
  // Client: a handshake that did not agree on h2 fails (--http2).
  bool requires_http2() const { return requires_http2_; }

 private:
  struct Free {
    void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
  };
  std::unique_ptr<SSL_CTX, Free> ctx_;
  bool server_ = false;
  bool resume_ = true;
  bool requires_http2_ = false;
};

// What `--preflight` says about kernel TLS: whether this kernel offers the `tls` ULP.
bool KernelTlsAvailable();
// "OpenSSL 3.0.19 1 Jul 2025" (the library this binary runs with).
std::string OpenSslVersion();
// The same for the OpenSSL headers this binary was compiled with.
std::string OpenSslBuildVersion();

}  // namespace uringload::net
