#include "core/http3_transport.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace uringload::core {
const std::string& Http3Transport::end_reason() const {
  return http3_failure_.empty() ? quic_->end_reason() : http3_failure_;
}

void Http3Transport::Attach(std::unique_ptr<net::QuicConnection> quic) {
  http3_failure_.clear();
  quic_ = std::move(quic);
  quic_->set_source(this);
}

void Http3Transport::OnHandshakeCompleted() {
  if (streams_->started()) {  // Before the handshake ended: a client's 0-RTT, a server's.
    if (!quic_->early_data_attempted() || quic_->early_data_accepted()) return;
    quic_->RejectEarlyData();  // QUIC forgot the streams opened early: HTTP/3 starts over.
    OnEarlyDataRejected();
  }
  StartStreams();
}

void Http3Transport::StartStreams() {
  // HTTP/3's control stream and QPACK's two streams, this side's first unidirectional ones
  // (the peer allows at least three: RFC 9114 6.2).
  int64_t control = quic_->OpenUniStream();
  int64_t encoder = quic_->OpenUniStream();
  int64_t decoder = quic_->OpenUniStream();
  if (control < 0 || encoder < 0 || decoder < 0) {
    FailHttp3(absl::UnavailableError("the peer allows fewer than 3 unidirectional streams"));
    return;
  }
  if (absl::Status s = StartHttp3(control, encoder, decoder); !s.ok()) FailHttp3(s);
}

void Http3Transport::OnStreamData(int64_t id, std::span<const uint8_t> data, bool fin) {
  // A server's first request can come in 0-RTT, before its handshake ended.
  if (!streams_->started() && http3_failure_.empty()) StartStreams();
  if (!streams_->started()) return;
  if (absl::Status s = streams_->Receive(id, data, fin); !s.ok()) FailHttp3(s);
}

void Http3Transport::OnStreamDataAcked(int64_t id, uint64_t /*offset*/, uint64_t length) {
  if (streams_->started()) streams_->Acked(id, length);
}

void Http3Transport::OnStreamClosed(int64_t id, uint64_t app_error_code) {
  if (!streams_->started()) return;
  if (absl::Status s = streams_->StreamClosed(id, app_error_code); !s.ok()) FailHttp3(s);
}

int64_t Http3Transport::NextStreamData(std::span<net::QuicVec> vecs, size_t* count, bool* fin) {
  *count = 0;
  *fin = false;
  if (!streams_->started()) return -1;
  static_assert(sizeof(net::QuicVec) == sizeof(proto::Http3Vec));
  proto::Http3Vec h3[16];
  int64_t id =
      streams_->NextStreamData(std::span(h3, std::min(vecs.size(), std::size(h3))), count, fin);
  for (size_t i = 0; i < *count; ++i) vecs[i] = {h3[i].base, h3[i].length};
  if (id < 0 && streams_->error_code() != 0) {
    FailHttp3(absl::DataLossError("HTTP/3: nghttp3 could not write"));
  }
  return id;
}

void Http3Transport::Consumed(int64_t id, size_t bytes) { streams_->Consumed(id, bytes); }

void Http3Transport::Blocked(int64_t id) { streams_->Blocked(id); }

void Http3Transport::Unblocked(int64_t id) {
  if (streams_->started()) streams_->Unblocked(id);
}

void Http3Transport::FailHttp3(const absl::Status& status) {
  if (!http3_failure_.empty()) return;
  http3_failure_ = std::string(status.message());
  uint64_t code =
      streams_->error_code() != 0 ? streams_->error_code() : proto::kH3GeneralProtocolError;
  quic_->CloseWithApplicationError(code, http3_failure_);
}

Http3Transport::Sent Http3Transport::SendDue(net::EventLoop& loop, uint32_t slot,
                                             net::QuicSendBuffers& buffers,
                                             net::QuicSendBuffer& held, int64_t now_ns) {
  uint32_t datagram_size = 0;
  size_t n = Write(buffers.scratch(), now_ns, &datagram_size);
  if (n == 0) return {};
  buffers.Hold(n, held);
  loop.SendDatagrams(slot, held.data(), static_cast<uint32_t>(n), datagram_size);
  return {.bytes = n, .packets = (n + datagram_size - 1) / datagram_size};
}

void Http3Transport::ScheduleExpiry(net::TimerWheel& timers, net::TimerNode* node) const {
  int64_t expiry = expiry_ns();
  if (expiry == std::numeric_limits<int64_t>::max()) {
    timers.Cancel(node);
  } else {
    timers.Schedule(node, expiry);
  }
}

}  // namespace uringload::core
