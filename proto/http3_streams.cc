#include "proto/http3_streams.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace uringload::proto {

absl::Status Http3Streams::Bind(int rv, int64_t control_stream, int64_t qpack_encoder_stream,
                                int64_t qpack_decoder_stream) {
  error_code_ = 0;
  if (rv == 0) rv = nghttp3_conn_bind_control_stream(conn_, control_stream);
  if (rv == 0)
    rv = nghttp3_conn_bind_qpack_streams(conn_, qpack_encoder_stream, qpack_decoder_stream);
  if (rv != 0) return absl::InternalError(absl::StrCat("nghttp3: ", nghttp3_strerror(rv)));
  return absl::OkStatus();
}

void Http3Streams::Free() {
  if (conn_ != nullptr) nghttp3_conn_del(conn_);
  conn_ = nullptr;
}

absl::Status Http3Streams::Failed(int rv) {
  error_code_ = nghttp3_err_infer_quic_app_error_code(rv);
  return absl::DataLossError(absl::StrCat("HTTP/3: ", nghttp3_strerror(rv)));
}

absl::Status Http3Streams::Receive(int64_t stream_id, std::span<const uint8_t> data, bool fin) {
  nghttp3_ssize n = nghttp3_conn_read_stream(conn_, stream_id, data.data(), data.size(), fin);
  if (n < 0) return Failed(static_cast<int>(n));
  return absl::OkStatus();
}

int64_t Http3Streams::NextStreamData(std::span<Http3Vec> vecs, size_t* count, bool* fin) {
  static_assert(sizeof(Http3Vec) == sizeof(nghttp3_vec));
  int64_t stream_id = -1;
  int end = 0;
  nghttp3_vec v[16];
  size_t room = std::min(vecs.size(), std::size(v));
  nghttp3_ssize n = nghttp3_conn_writev_stream(conn_, &stream_id, &end, v, room);
  *count = 0;
  *fin = false;
  if (n < 0) {
    error_code_ = nghttp3_err_infer_quic_app_error_code(static_cast<int>(n));
    return -1;
  }
  for (nghttp3_ssize i = 0; i < n; ++i) vecs[static_cast<size_t>(i)] = {v[i].base, v[i].len};
  *count = static_cast<size_t>(n);
  *fin = end != 0;
  return stream_id;
}

void Http3Streams::Consumed(int64_t stream_id, size_t bytes) {
  nghttp3_conn_add_write_offset(conn_, stream_id, bytes);
}

void Http3Streams::Blocked(int64_t stream_id) { nghttp3_conn_block_stream(conn_, stream_id); }

void Http3Streams::Unblocked(int64_t stream_id) { nghttp3_conn_unblock_stream(conn_, stream_id); }

void Http3Streams::Acked(int64_t stream_id, uint64_t bytes) {
  nghttp3_conn_add_ack_offset(conn_, stream_id, bytes);
}

absl::Status Http3Streams::StreamClosed(int64_t stream_id, uint64_t app_error_code) {
  int rv = nghttp3_conn_close_stream(conn_, stream_id, app_error_code);
  if (rv == 0 || rv == NGHTTP3_ERR_STREAM_NOT_FOUND) return absl::OkStatus();
  return Failed(rv);
}

}  // namespace uringload::proto
