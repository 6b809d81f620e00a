// Http3Transport: HTTP/3 over one QUIC connection in memory, for either side. QUIC's stream
// bytes, acknowledgements and closes feed the side's HTTP/3 session (proto::Http3Streams), and
// the session's stream bytes are what QUIC packs into packets. When QUIC's handshake ends,
// the side's control and QPACK streams open and its session starts (StartHttp3), unless it
// started before: a client sending 0-RTT starts at once, a server when early data comes. A
// client whose early data the server refused starts over. An HTTP/3 error ends the
// connection with its code. The worker hands it the datagrams its UDP slot
// received and its expiry, and sends what Write gives. The client's Http3Connection and
// serve's Http3ServerConnection are its two sides.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "net/event_loop.h"
#include "net/quic_connection.h"
#include "net/quic_send_buffers.h"
#include "net/timer_wheel.h"
#include "proto/http3_streams.h"

namespace uringload::core {

class Http3Transport : private net::QuicConnection::Events,
                       private net::QuicConnection::StreamSource {
 public:
  Http3Transport(const Http3Transport&) = delete;
  Http3Transport& operator=(const Http3Transport&) = delete;

  bool started() const { return quic_ != nullptr; }
  // One received datagram; false once the connection has ended (end()).
  bool Receive(std::span<const uint8_t> datagram, int64_t now_ns) {
    return quic_->Receive(datagram, now_ns);
  }
  // The packets due now, as QuicConnection::Write.
  size_t Write(std::span<uint8_t> out, int64_t now_ns, uint32_t* datagram_size) {
    return quic_->Write(out, now_ns, datagram_size);
  }
  int64_t expiry_ns() const { return quic_->expiry_ns(); }
  // What SendDue sent (nothing: 0 bytes).
  struct Sent {
    size_t bytes = 0;
    size_t packets = 0;
  };
  // Both sides' send: the packets due now, written into `buffers`' scratch, copied into a free
  // buffer of their size that `held` keeps until the send completes, and sent on the UDP slot
  // `slot` as one run (UDP_SEGMENT). The caller checked that no send is in flight.
  Sent SendDue(net::EventLoop& loop, uint32_t slot, net::QuicSendBuffers& buffers,
               net::QuicSendBuffer& held, int64_t now_ns);
  // QUIC's own timer: `node` set to its next expiry, or cancelled when it has none.
  void ScheduleExpiry(net::TimerWheel& timers, net::TimerNode* node) const;
  bool HandleExpiry(int64_t now_ns) { return quic_->HandleExpiry(now_ns); }
  const net::QuicConnection& quic() const { return *quic_; }
  net::QuicEnd end() const { return quic_->end(); }
  // It ended because HTTP/3 broke (a malformed frame, a protocol error): this side closed it.
  bool http3_failed() const { return !http3_failure_.empty(); }
  // What ended it: QUIC's reason, or the HTTP/3 error that made this side close it.
  const std::string& end_reason() const;

 protected:
  explicit Http3Transport(proto::Http3Streams* streams) : streams_(streams) {}
  ~Http3Transport() = default;

  // What a side passes as the Events of the QUIC connection it makes, then hands to Attach:
  // stream bytes go to and come from its session from then on.
  net::QuicConnection::Events* quic_events() { return this; }
  void Attach(std::unique_ptr<net::QuicConnection> quic);
  // The handshake ended and the side's control and QPACK streams are open: its session starts.
  virtual absl::Status StartHttp3(int64_t control_stream, int64_t qpack_encoder_stream,
                                  int64_t qpack_decoder_stream) = 0;
  // HTTP/3 broke: the connection ends with its error.
  void FailHttp3(const absl::Status& status);
  // Opens this side's control and QPACK streams and starts its session (StartHttp3).
  void StartStreams();
  // The server refused the early data: the side drops its session's state; StartHttp3 follows.
  virtual void OnEarlyDataRejected() {}

  std::unique_ptr<net::QuicConnection> quic_;

 private:
  // QUIC's events.
  void OnHandshakeCompleted() override;
  void OnStreamData(int64_t id, std::span<const uint8_t> data, bool fin) override;
  void OnStreamDataAcked(int64_t id, uint64_t offset, uint64_t length) override;
  void OnStreamClosed(int64_t id, uint64_t app_error_code) override;
  // QUIC asks for stream bytes: HTTP/3's.
  int64_t NextStreamData(std::span<net::QuicVec> vecs, size_t* count, bool* fin) override;
  void Consumed(int64_t id, size_t bytes) override;
  void Blocked(int64_t id) override;
  void Unblocked(int64_t id) override;

  proto::Http3Streams* streams_;
  std::string http3_failure_;
};

}  // namespace uringload::core
