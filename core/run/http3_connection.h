// Http3Connection: one HTTP/3 client connection in memory, QUIC (net::QuicConnection) under
// HTTP/3 (proto::Http3ClientSession), glued by Http3Transport. The worker submits requests
// with a tag; each ends once through Events::OnStreamEnd.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/http3_transport.h"
#include "net/quic_connection.h"
#include "proto/http3_client_session.h"

namespace uringload::core {

class Http3Connection : public Http3Transport, private proto::Http3ClientSession::Events {
 public:
  class Events {
   public:
    virtual ~Events() = default;
    // HTTP/3 is ready: requests may be submitted (with 0-RTT, before the handshake ended).
    virtual void OnReady() {}
    // The server refused the 0-RTT data: the requests in flight must be submitted again.
    virtual void OnEarlyDataRejected() {}
    virtual void OnStreamEnd(const proto::StreamEnd& end) = 0;
    virtual void OnProgress(uint32_t /*tag*/, proto::ResponseProgress /*progress*/) {}
    virtual void OnBody(uint32_t /*tag*/, std::string_view /*piece*/) {}
  };

  // `streams`: the most requests open at once (tags are below it).
  explicit Http3Connection(uint32_t streams) : Http3Transport(&session_), session_(streams) {}

  // A new connection to `server_name` over `path`: its Initial waits in the first Write.
  // `resume`: a session to resume (TakeSessionTicket of an earlier connection), or empty;
  // `early_params` with it (TakeEarlyParams): 0-RTT, HTTP/3 ready at once (OnReady).
  absl::Status Start(const net::QuicTlsContext& tls, const net::QuicPath& path,
                     std::string server_name, const net::QuicSettings& settings, Events* events,
                     int64_t now_ns, std::span<const uint8_t> resume = {},
                     std::span<const uint8_t> early_params = {});
  bool TakeSessionTicket(std::vector<uint8_t>* out) const { return quic_->TakeSessionTicket(out); }
  bool TakeEarlyParams(std::vector<uint8_t>* out) const { return quic_->TakeEarlyParams(out); }

  // HTTP/3 is up and a request may go out (a slot and a QUIC stream are free).
  bool can_open() const;
  // HTTP/3 is up (the handshake ended and the control streams are open), and the connection
  // has not ended.
  bool ready() const;
  // How many more requests may go out now: the streams the server allows, 0 after a GOAWAY.
  uint64_t streams_left() const;
  // A GOAWAY came: no request may go out on it any more.
  bool going_away() const { return session_.going_away(); }
  // Sends `request` rendered for `context` on a new stream. `request` must outlive it.
  absl::Status Submit(const proto::RequestTemplate& request, const proto::TemplateContext& context,
                      uint32_t tag);
  // Ends request `tag` from the client's side: its stream is reset, it is not reported.
  void Cancel(uint32_t tag) { session_.Cancel(tag); }
  void SetBodyMatcher(const proto::BodyMatcher* matcher) { session_.SetBodyMatcher(matcher); }
  void SetInspector(proto::ResponseInspector* inspector) { session_.SetInspector(inspector); }
  void SetStreamBodies(bool on) { session_.SetStreamBodies(on); }

  // Ends it from this side without error (H3_NO_ERROR): the next Write gives its
  // CONNECTION_CLOSE, then nothing.
  void CloseGracefully();
  // Frees the connection's QUIC and HTTP/3 state (its requests are not reported).
  void Stop();
  uint32_t open_requests() const { return session_.open_requests(); }

 private:
  absl::Status StartHttp3(int64_t control_stream, int64_t qpack_encoder_stream,
                          int64_t qpack_decoder_stream) override;
  void OnEarlyDataRejected() override;
  // HTTP/3's events.
  void OnStreamEnd(const proto::StreamEnd& end) override;
  void OnProgress(uint32_t tag, proto::ResponseProgress progress) override {
    events_->OnProgress(tag, progress);
  }
  void OnBody(uint32_t tag, std::string_view piece) override { events_->OnBody(tag, piece); }
  void OnStreamShutdown(int64_t id, uint64_t code) override;

  proto::Http3ClientSession session_;
  Events* events_ = nullptr;
  bool early_rejected_ = false;  // The next StartHttp3 starts over after refused 0-RTT.
};

}  // namespace uringload::core
