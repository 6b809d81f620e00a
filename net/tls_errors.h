// TLS failures as cause codes beside errno values: a completion's negative `res` is -errno or
// -(one of these), so the workers' per-cause counts keep a TLS reason (a certificate that
// failed verification, a connection closed without close_notify) as exactly as an errno.
// Codes sit above every errno Linux uses (< 134).
#pragma once

#include <string>

namespace uringload::net {

inline constexpr int kTlsCauseBase = 160;
// kTlsVerifyBase + X509_V_ERR_* (0..95): the peer's certificate failed verification.
inline constexpr int kTlsVerifyBase = kTlsCauseBase;
inline constexpr int kTlsVerifyCodes = 96;  // X509_V_ERR_* codes of OpenSSL 3.0 end at 94.
inline constexpr int kTlsHandshakeFailed = kTlsVerifyBase + kTlsVerifyCodes;  // Alert, protocol.
inline constexpr int kTlsNoCloseNotify = kTlsHandshakeFailed + 1;  // EOF without close_notify.
inline constexpr int kTlsRecordError = kTlsNoCloseNotify + 1;      // Bad record after handshake.
inline constexpr int kTlsNoHttp2 = kTlsRecordError + 1;            // --http2, and ALPN chose none.
inline constexpr int kTlsCauseEnd = kTlsNoHttp2 + 1;               // One past the last code.

inline bool IsTlsCause(int code) { return code >= kTlsCauseBase && code < kTlsCauseEnd; }
// "certificate verify failed: self-signed certificate", "TLS handshake failed", …
std::string TlsCauseText(int code);

}  // namespace uringload::net
