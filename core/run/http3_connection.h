// Http3Connection: one HTTP/3 client connection in memory, QUIC (net::QuicConnection) under
// HTTP/3 (proto::Http3ClientSession): QUIC's stream bytes, acknowledgements and closes feed
// the HTTP/3 session, and the session's stream bytes are what QUIC packs into packets. Once
// QUIC's handshake is done it opens the control and QPACK streams and starts HTTP/3. The
// worker hands it the datagrams its UDP slot received and its expiry, sends what Write gives,
// and submits requests with a tag; each ends once through Events::OnStreamEnd.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "net/quic_connection.h"
#include "proto/http3_client_session.h"

namespace uringload::core {

class Http3Connection : private net::QuicConnection::Events,
                        private net::QuicConnection::StreamSource,
                        private proto::Http3ClientSession::Events {
 public:
  class Events {
   public:
    virtual ~Events() = default;
    // HTTP/3 is ready: requests may be submitted.
    virtual void OnReady() {}
    virtual void OnStreamEnd(const proto::Http3StreamEnd& end) = 0;
  };

  // `streams`: the most requests open at once (tags are below it).
  explicit Http3Connection(uint32_t streams) : session_(streams) {}

  // A new connection to `server_name` over `path`: its Initial waits in the first Write.
  // `resume`: a session to resume (TakeSessionTicket of an earlier connection), or empty.
  absl::Status Start(const net::QuicTlsContext& tls, const net::QuicPath& path,
                     std::string server_name, const net::QuicSettings& settings, Events* events,
                     int64_t now_ns, std::span<const uint8_t> resume = {});
  bool TakeSessionTicket(std::vector<uint8_t>* out) const { return quic_->TakeSessionTicket(out); }
  bool started() const { return quic_ != nullptr; }
  // One received datagram; false once the connection has ended (end()).
  bool Receive(std::span<const uint8_t> datagram, int64_t now_ns);
  // The packets due now, as QuicConnection::Write.
  size_t Write(std::span<uint8_t> out, int64_t now_ns, uint32_t* datagram_size);
  int64_t expiry_ns() const { return quic_->expiry_ns(); }
  bool HandleExpiry(int64_t now_ns) { return quic_->HandleExpiry(now_ns); }

  // HTTP/3 is up and a request may go out (a slot and a QUIC stream are free).
  bool can_open() const;
  // HTTP/3 is up (the handshake ended and the control streams are open), and the connection
  // has not ended.
  bool ready() const;
  // How many more requests may go out now: the streams the server allows, 0 after a GOAWAY.
  uint64_t streams_left() const;
  // A GOAWAY came: no request may go out on it any more.
  bool going_away() const { return session_.going_away(); }
  const net::QuicConnection& quic() const { return *quic_; }
  // Sends `request` rendered for `context` on a new stream. `request` must outlive it.
  absl::Status Submit(const proto::RequestTemplate& request, const proto::TemplateContext& context,
                      uint32_t tag);
  // Ends request `tag` from the client's side: its stream is reset, it is not reported.
  void Cancel(uint32_t tag) { session_.Cancel(tag); }
  void SetBodyMatcher(const proto::BodyMatcher* matcher) { session_.SetBodyMatcher(matcher); }

  net::QuicEnd end() const { return quic_->end(); }
  // It ended because HTTP/3 broke (a malformed frame, a protocol error): this side closed it.
  bool http3_failed() const { return !http3_failure_.empty(); }
  // Ends it from this side without error (H3_NO_ERROR): the next Write gives its
  // CONNECTION_CLOSE, then nothing.
  void CloseGracefully();
  // Frees the connection's QUIC and HTTP/3 state (its requests are not reported).
  void Stop();
  // What ended it: QUIC's reason, or the HTTP/3 error that made this side close it.
  const std::string& end_reason() const;
  uint32_t open_requests() const { return session_.open_requests(); }

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
  // HTTP/3's events.
  void OnStreamEnd(const proto::Http3StreamEnd& end) override;
  void OnStreamShutdown(int64_t id, uint64_t code) override;
  // HTTP/3 broke: the connection ends with its error.
  void FailHttp3(const absl::Status& status);

  std::unique_ptr<net::QuicConnection> quic_;
  proto::Http3ClientSession session_;
  Events* events_ = nullptr;
  std::string http3_failure_;
};

}  // namespace uringload::core
