// Outcome: the one way each started request ends. Every started request gets exactly one.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "net/tls_errors.h"

namespace uringload::core {

enum class Outcome : size_t {
  kOk = 0,        // A complete response, any status code.
  kTimeout,       // No complete response within --timeout.
  kConnectError,  // The connection for it could not be opened (refused, timed out, no port).
  kReset,         // The connection closed or reset before any byte of the response.
  kParseError,    // Malformed or truncated response.
  kCheckFailed,   // A complete response that an expectation (--expect-status, ...) rejected.
};
inline constexpr size_t kOutcomeCount = 6;

// Plain C strings: they go to both std:: and (Debian's own) absl::string_view APIs.
inline constexpr std::array<const char*, kOutcomeCount> kOutcomeNames = {
    "ok", "timeout", "connect_error", "reset", "parse_error", "check_failed"};

inline constexpr const char* OutcomeName(Outcome o) {
  return kOutcomeNames[static_cast<size_t>(o)];
}

// Why a response was a parse_error. The error details keep it where other failures keep their
// errno (a parse error has none), so the summary and the JSON can say what was wrong.
enum class ParseFailure : int {
  kUnknown = 0,
  kMalformed,
  kHeadersTooLarge,
  kTruncated,
  kHttp2Protocol,     // nghttp2 found a frame or protocol error on the connection.
  kHttp2Compression,  // An HPACK block that does not decode.
  kHttp2Incomplete,   // A stream closed without error before its response ended.
  kGrpcNoStatus,      // A gRPC call's response ended without a valid grpc-status.
  kGrpcMalformed,     // A gRPC call's DATA broke the message framing, or ended mid-message.
  kHttp3Protocol,     // nghttp3 found a frame or protocol error on the connection.
  kHttp3Incomplete,   // A stream ended without error before its response did.
  kHttp3Malformed,    // nghttp3 found the response malformed (H3_MESSAGE_ERROR).
  kHttp2Malformed,    // nghttp2 found the response malformed (it reset the stream).
};
inline constexpr const char* ParseFailureText(int code) {
  switch (static_cast<ParseFailure>(code)) {
    case ParseFailure::kMalformed:
      return "malformed response";
    case ParseFailure::kHeadersTooLarge:
      return "header block over 65536 bytes";
    case ParseFailure::kTruncated:
      return "response cut short by a close";
    case ParseFailure::kHttp2Protocol:
      return "HTTP/2 protocol error";
    case ParseFailure::kHttp2Compression:
      return "HTTP/2 header compression error";
    case ParseFailure::kHttp2Incomplete:
      return "HTTP/2 stream closed before its response ended";
    case ParseFailure::kGrpcNoStatus:
      return "gRPC call ended without a grpc-status";
    case ParseFailure::kGrpcMalformed:
      return "gRPC message framing broken";
    case ParseFailure::kHttp3Protocol:
      return "HTTP/3 protocol error";
    case ParseFailure::kHttp3Incomplete:
      return "HTTP/3 stream ended before its response did";
    case ParseFailure::kHttp3Malformed:
      return "HTTP/3 response malformed";
    case ParseFailure::kHttp2Malformed:
      return "HTTP/2 response malformed";
    default:
      return "malformed or truncated response";
  }
}

// Which expectation a check_failed response missed, kept where other failures keep their
// errno, so the summary and the JSON say what was wrong.
enum class CheckFailure : int {
  kUnknown = 0,
  kStatus,        // Its status is not one --expect-status (or a step's expect) lists.
  kBodyContains,  // Its body lacks the expected text.
  // Flows (core/flow/): a step's other expectations and its extractions.
  kJsonValue,      // A JSON pointer's value is not the expected one (or is absent).
  kHeaderValue,    // A header's value is not the expected one (or is absent).
  kNotExtracted,   // An extraction found nothing (json, header, cookie or regex).
  kTooLong,        // An extracted value is longer than --max-var-bytes.
  kCookieRefused,  // A Set-Cookie did not fit the jar (--max-cookie-bytes, or 16 cookies).
  kGrpcStatus,     // A gRPC call's grpc-status is not one its step's expect lists.
  kEvents,         // --stream: fewer events than --expect-events.
};
inline constexpr int kCheckFailureCount = 11;
inline constexpr const char* CheckFailureText(int code) {
  switch (static_cast<CheckFailure>(code)) {
    case CheckFailure::kStatus:
      return "status not expected";
    case CheckFailure::kBodyContains:
      return "body lacks the expected text";
    case CheckFailure::kJsonValue:
      return "JSON value not expected";
    case CheckFailure::kHeaderValue:
      return "header value not expected";
    case CheckFailure::kNotExtracted:
      return "nothing to extract";
    case CheckFailure::kTooLong:
      return "extracted value longer than --max-var-bytes";
    case CheckFailure::kCookieRefused:
      return "cookie did not fit the jar (--max-cookie-bytes)";
    case CheckFailure::kGrpcStatus:
      return "grpc-status not expected";
    case CheckFailure::kEvents:
      return "fewer events than --expect-events";
    default:
      return "an expectation failed";
  }
}
// Outcomes whose cause slot holds a reason of uringload's own (ParseFailure, CheckFailure)
// rather than an errno.
inline constexpr bool CauseIsReason(size_t outcome) {
  return outcome == static_cast<size_t>(Outcome::kParseError) ||
         outcome == static_cast<size_t>(Outcome::kCheckFailed);
}

// A stream's HTTP/2 error code (RFC 9113 section 7: RST_STREAM, or GOAWAY for a stream the
// server processed) is the cause of its `reset`: kHttp2CauseBase + code, above the TLS causes.
inline constexpr int kHttp2CauseBase = net::kTlsCauseEnd;
// By code; the last entry stands for every code above the ones RFC 9113 names (extensions).
inline constexpr std::array<const char*, 15> kHttp2ResetTexts = {
    "HTTP/2 stream reset: NO_ERROR",
    "HTTP/2 stream reset: PROTOCOL_ERROR",
    "HTTP/2 stream reset: INTERNAL_ERROR",
    "HTTP/2 stream reset: FLOW_CONTROL_ERROR",
    "HTTP/2 stream reset: SETTINGS_TIMEOUT",
    "HTTP/2 stream reset: STREAM_CLOSED",
    "HTTP/2 stream reset: FRAME_SIZE_ERROR",
    "HTTP/2 stream reset: REFUSED_STREAM",
    "HTTP/2 stream reset: CANCEL",
    "HTTP/2 stream reset: COMPRESSION_ERROR",
    "HTTP/2 stream reset: CONNECT_ERROR",
    "HTTP/2 stream reset: ENHANCE_YOUR_CALM",
    "HTTP/2 stream reset: INADEQUATE_SECURITY",
    "HTTP/2 stream reset: HTTP_1_1_REQUIRED",
    "HTTP/2 stream reset: an extension's error code"};
inline constexpr int kHttp2CauseEnd = kHttp2CauseBase + static_cast<int>(kHttp2ResetTexts.size());
inline constexpr int Http2Cause(uint32_t code) {
  return kHttp2CauseBase + static_cast<int>(std::min<size_t>(code, kHttp2ResetTexts.size() - 1));
}
inline constexpr bool IsHttp2Cause(int cause) {
  return cause >= kHttp2CauseBase && cause < kHttp2CauseEnd;
}

// HTTP/3 and QUIC (RFC 9114 8.1, RFC 9000 20.1): a stream reset with an HTTP/3 code, a
// connection the server closed with a QUIC or an HTTP/3 code, and the ends QUIC itself finds.
// The names by code; the last entry of each stands for every other code.
inline constexpr std::array<const char*, 18> kHttp3ErrorNames = {"H3_NO_ERROR",
                                                                 "H3_GENERAL_PROTOCOL_ERROR",
                                                                 "H3_INTERNAL_ERROR",
                                                                 "H3_STREAM_CREATION_ERROR",
                                                                 "H3_CLOSED_CRITICAL_STREAM",
                                                                 "H3_FRAME_UNEXPECTED",
                                                                 "H3_FRAME_ERROR",
                                                                 "H3_EXCESSIVE_LOAD",
                                                                 "H3_ID_ERROR",
                                                                 "H3_SETTINGS_ERROR",
                                                                 "H3_MISSING_SETTINGS",
                                                                 "H3_REQUEST_REJECTED",
                                                                 "H3_REQUEST_CANCELLED",
                                                                 "H3_REQUEST_INCOMPLETE",
                                                                 "H3_MESSAGE_ERROR",
                                                                 "H3_CONNECT_ERROR",
                                                                 "H3_VERSION_FALLBACK",
                                                                 "an extension's error code"};
inline constexpr std::array<const char*, 19> kQuicErrorNames = {"NO_ERROR",
                                                                "INTERNAL_ERROR",
                                                                "CONNECTION_REFUSED",
                                                                "FLOW_CONTROL_ERROR",
                                                                "STREAM_LIMIT_ERROR",
                                                                "STREAM_STATE_ERROR",
                                                                "FINAL_SIZE_ERROR",
                                                                "FRAME_ENCODING_ERROR",
                                                                "TRANSPORT_PARAMETER_ERROR",
                                                                "CONNECTION_ID_LIMIT_ERROR",
                                                                "PROTOCOL_VIOLATION",
                                                                "INVALID_TOKEN",
                                                                "APPLICATION_ERROR",
                                                                "CRYPTO_BUFFER_EXCEEDED",
                                                                "KEY_UPDATE_ERROR",
                                                                "AEAD_LIMIT_REACHED",
                                                                "NO_VIABLE_PATH",
                                                                "CRYPTO_ERROR",
                                                                "an unknown QUIC error code"};
inline constexpr uint64_t kHttp3FirstCode = 0x100;
inline constexpr uint64_t kHttp3RequestRejected = 0x10b;
inline constexpr int kHttp3ResetBase = kHttp2CauseEnd;  // A stream reset, by HTTP/3 code.
inline constexpr int kQuicCloseBase = kHttp3ResetBase + static_cast<int>(kHttp3ErrorNames.size());
// A CONNECTION_CLOSE of the application (HTTP/3), by code.
inline constexpr int kQuicAppCloseBase = kQuicCloseBase + static_cast<int>(kQuicErrorNames.size());
inline constexpr int kQuicIdleTimeout =
    kQuicAppCloseBase + static_cast<int>(kHttp3ErrorNames.size());
inline constexpr int kQuicHandshakeTimeout = kQuicIdleTimeout + 1;
inline constexpr int kQuicHandshakeFailed = kQuicHandshakeTimeout + 1;  // TLS or QUIC, here.
inline constexpr int kQuicError = kQuicHandshakeFailed + 1;  // QUIC broke after the handshake.
inline constexpr int kQuicStatelessReset = kQuicError + 1;   // The server lost the connection.

// TLS alerts (RFC 8446 6 and IANA's registry), in code order: a QUIC CRYPTO_ERROR is 0x100 +
// the alert (RFC 9001 4.8). The last entry stands for every other code.
struct TlsAlert {
  uint8_t code;
  const char* name;
};
inline constexpr std::array<TlsAlert, 35> kTlsAlerts = {{{0, "close_notify"},
                                                         {10, "unexpected_message"},
                                                         {20, "bad_record_mac"},
                                                         {21, "decryption_failed"},
                                                         {22, "record_overflow"},
                                                         {30, "decompression_failure"},
                                                         {40, "handshake_failure"},
                                                         {41, "no_certificate"},
                                                         {42, "bad_certificate"},
                                                         {43, "unsupported_certificate"},
                                                         {44, "certificate_revoked"},
                                                         {45, "certificate_expired"},
                                                         {46, "certificate_unknown"},
                                                         {47, "illegal_parameter"},
                                                         {48, "unknown_ca"},
                                                         {49, "access_denied"},
                                                         {50, "decode_error"},
                                                         {51, "decrypt_error"},
                                                         {60, "export_restriction"},
                                                         {70, "protocol_version"},
                                                         {71, "insufficient_security"},
                                                         {80, "internal_error"},
                                                         {86, "inappropriate_fallback"},
                                                         {90, "user_canceled"},
                                                         {100, "no_renegotiation"},
                                                         {109, "missing_extension"},
                                                         {110, "unsupported_extension"},
                                                         {111, "certificate_unobtainable"},
                                                         {112, "unrecognized_name"},
                                                         {113, "bad_certificate_status_response"},
                                                         {114, "bad_certificate_hash_value"},
                                                         {115, "unknown_psk_identity"},
                                                         {116, "certificate_required"},
                                                         {120, "no_application_protocol"},
                                                         {255, "an unregistered alert"}}};
// The server closed the connection with CRYPTO_ERROR: by alert, each twice (the client sent
// SNI; it sent none, its host being an IP address).
inline constexpr int kQuicTlsAlertBase = kQuicStatelessReset + 1;
inline constexpr int kCauseEnd = kQuicTlsAlertBase + 2 * static_cast<int>(kTlsAlerts.size());

inline constexpr int TlsAlertIndex(uint64_t alert) {
  for (size_t k = 0; k + 1 < kTlsAlerts.size(); ++k) {
    if (kTlsAlerts[k].code == alert) return static_cast<int>(k);
  }
  return static_cast<int>(kTlsAlerts.size() - 1);
}

inline constexpr int Http3NameIndex(uint64_t code) {
  return code >= kHttp3FirstCode && code - kHttp3FirstCode < kHttp3ErrorNames.size() - 1
             ? static_cast<int>(code - kHttp3FirstCode)
             : static_cast<int>(kHttp3ErrorNames.size() - 1);
}
inline constexpr int Http3ResetCause(uint64_t code) {
  return kHttp3ResetBase + Http3NameIndex(code);
}
// The server closed the connection with `code`, an application's (HTTP/3) or QUIC's own;
// `sni_sent`: the client named the server (its host is no IP address).
inline constexpr int QuicCloseCause(uint64_t code, bool application, bool sni_sent) {
  if (application) return kQuicAppCloseBase + Http3NameIndex(code);
  if (code <= 0x10) return kQuicCloseBase + static_cast<int>(code);
  if (code >= 0x100 && code <= 0x1ff) {  // CRYPTO_ERROR: a TLS alert.
    return kQuicTlsAlertBase + 2 * TlsAlertIndex(code - 0x100) + (sni_sent ? 0 : 1);
  }
  return kQuicCloseBase + 18;
}
inline constexpr bool IsQuicCause(int cause) {
  return cause >= kHttp3ResetBase && cause < kCauseEnd;
}
inline std::string QuicCauseText(int cause) {
  if (cause < kQuicCloseBase) {
    return std::string("HTTP/3 stream reset: ") + kHttp3ErrorNames[cause - kHttp3ResetBase];
  }
  if (cause < kQuicAppCloseBase) {
    return std::string("QUIC connection closed by the server: ") +
           kQuicErrorNames[cause - kQuicCloseBase];
  }
  if (cause < kQuicIdleTimeout) {
    return std::string("QUIC connection closed by the server: ") +
           kHttp3ErrorNames[cause - kQuicAppCloseBase];
  }
  switch (cause) {
    case kQuicIdleTimeout:
      return "QUIC idle timeout: nothing came from the server";
    case kQuicHandshakeTimeout:
      return "QUIC handshake timeout: the handshake did not end within --connect-timeout";
    case kQuicHandshakeFailed:
      return "QUIC handshake failed (TLS or QUIC)";
    case kQuicStatelessReset:
      return "QUIC stateless reset: the server no longer knows the connection";
    case kQuicError:
      return "QUIC connection failed";
    default:
      break;
  }
  int alert = (cause - kQuicTlsAlertBase) / 2;
  bool no_sni = (cause - kQuicTlsAlertBase) % 2 == 1;
  std::string text = "QUIC connection closed by the server: CRYPTO_ERROR, TLS alert ";
  text += kTlsAlerts[alert].name;
  if (alert + 1 < static_cast<int>(kTlsAlerts.size())) {
    text += " (" + std::to_string(kTlsAlerts[alert].code) + ")";
  }
  if (no_sni) text += "; no SNI was sent, the host being an IP address";
  return text;
}
inline constexpr const char* Http2CauseText(int cause) {
  return kHttp2ResetTexts[static_cast<size_t>(cause - kHttp2CauseBase)];
}

}  // namespace uringload::core
