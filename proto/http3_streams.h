// Http3Streams: what HTTP/3's client and server sessions share above QUIC, whose stream ids
// they take but whose packets they never see: one nghttp3 connection that is fed the stream
// bytes QUIC received and asked for the stream bytes to send, which nghttp3 keeps until QUIC
// says they were acknowledged; QUIC's flow control and stream closes are passed on to it.
#pragma once

#include <nghttp3/nghttp3.h>

#include <cstdint>
#include <span>

#include "absl/status/status.h"

namespace uringload::proto {

// HTTP/3's error codes (RFC 9114 8.1) that the client and the server name.
inline constexpr uint64_t kH3NoError = NGHTTP3_H3_NO_ERROR;
inline constexpr uint64_t kH3GeneralProtocolError = NGHTTP3_H3_GENERAL_PROTOCOL_ERROR;
inline constexpr uint64_t kH3InternalError = NGHTTP3_H3_INTERNAL_ERROR;
inline constexpr uint64_t kH3RequestCancelled = NGHTTP3_H3_REQUEST_CANCELLED;
inline constexpr uint64_t kH3MessageError = NGHTTP3_H3_MESSAGE_ERROR;

// A span of stream bytes to send, laid out as nghttp3_vec and ngtcp2_vec are.
struct Http3Vec {
  const uint8_t* base = nullptr;
  size_t length = 0;
};

class Http3Streams {
 public:
  Http3Streams(const Http3Streams&) = delete;
  Http3Streams& operator=(const Http3Streams&) = delete;

  bool started() const { return conn_ != nullptr; }
  // Bytes QUIC received on stream `stream_id` (`fin`: its last). An error is nghttp3's and
  // ends the connection with its code (error_code()).
  absl::Status Receive(int64_t stream_id, std::span<const uint8_t> data, bool fin);
  // The next stream with bytes or a FIN to send: its id, the bytes in `vecs` (how many in
  // `*count`) and `*fin`; -1 when none. They stay valid until QUIC acknowledges them.
  int64_t NextStreamData(std::span<Http3Vec> vecs, size_t* count, bool* fin);
  // `bytes` of stream `stream_id`'s data went into QUIC packets.
  void Consumed(int64_t stream_id, size_t bytes);
  // QUIC's flow control holds stream `stream_id` / lets it go again.
  void Blocked(int64_t stream_id);
  void Unblocked(int64_t stream_id);
  // The peer acknowledged `bytes` more of stream `stream_id`.
  void Acked(int64_t stream_id, uint64_t bytes);
  // QUIC closed stream `stream_id` (both directions done, or reset).
  absl::Status StreamClosed(int64_t stream_id, uint64_t app_error_code);
  // The HTTP/3 error code the connection must close with after a failed call.
  uint64_t error_code() const { return error_code_; }

 protected:
  Http3Streams() = default;
  ~Http3Streams() { Free(); }
  // Binds the new connection `conn_` to its control and QPACK streams.
  absl::Status Bind(int rv, int64_t control_stream, int64_t qpack_encoder_stream,
                    int64_t qpack_decoder_stream);
  void Free();
  absl::Status Failed(int rv);

  nghttp3_conn* conn_ = nullptr;
  uint64_t error_code_ = 0;
};

}  // namespace uringload::proto
