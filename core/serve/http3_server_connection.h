// Http3ServerConnection: one `serve --http3` connection in memory: QUIC accepted from a
// client's Initial (net::QuicConnection) under an HTTP/3 server session
// (proto::Http3ServerSession), glued by Http3Transport. Each complete request comes out once
// through Events::OnRequest; the worker answers it through session() when its delay ends.
#pragma once

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "core/http3_transport.h"
#include "net/quic_connection.h"
#include "proto/http3_server_session.h"

namespace uringload::core {

class Http3ServerConnection : public Http3Transport, private proto::Http3ServerSession::Events {
 public:
  class Events {
   public:
    virtual ~Events() = default;
    virtual void OnRequest(const proto::Http3ServerSession::Request& request) = 0;
  };

  Http3ServerConnection() : Http3Transport(&session_) {}

  // The connection of the client whose first datagram is `initial`; fails when it is no
  // client Initial.
  absl::Status Accept(const net::QuicTlsContext& tls, const net::QuicPath& path,
                      std::span<const uint8_t> initial, const net::QuicSettings& settings,
                      Events* events, int64_t now_ns);
  proto::Http3ServerSession& session() { return session_; }
  // The reset fault: the connection ends now, its CONNECTION_CLOSE carrying H3_INTERNAL_ERROR.
  void Abort();
  // The no-close-notify fault: the connection ends as if the server had lost it, with a
  // stateless reset instead of a CONNECTION_CLOSE.
  void Forget();
  // Frees its QUIC and HTTP/3 state.
  void Stop();

 private:
  absl::Status StartHttp3(int64_t control_stream, int64_t qpack_encoder_stream,
                          int64_t qpack_decoder_stream) override;
  void OnRequest(const proto::Http3ServerSession::Request& request) override;
  void OnStreamShutdown(int64_t id, uint64_t code) override;

  proto::Http3ServerSession session_;
  Events* events_ = nullptr;
  uint64_t max_streams_ = 0;
};

}  // namespace uringload::core
