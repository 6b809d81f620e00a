// Http2Driver: HTTP/2 on a worker's TCP connections (h2 by ALPN over TLS, --http2 over
// http://): each connection's requests are streams of its Http2ClientSession (nghttp2 in
// memory). The session's frames go out through the loop's Send, one send in flight at a time,
// and its received bytes come from the same multishot receive as HTTP/1.1's.
#pragma once

#include <memory>
#include <vector>

#include "core/run/stream_driver.h"
#include "proto/http2_client_session.h"
#include "proto/http2_memory.h"

namespace uringload::core {

class Http2Driver final : public StreamDriver {
 public:
  Http2Driver(DriverHost* host, const DriverEnv& env);

  void Open(Connection& c) override;
  uint32_t Capacity(const Connection& c) const override;
  void Flush(Connection& c) override;
  void Refill(Connection& c) override;
  void OnSent(Connection& c, int res) override;
  void OnReceived(Connection& c, const net::Completion& completion) override;
  void Release(Connection& c) override;

 private:
  // A slot's session (made when the slot first speaks h2, then reused), and its events, which
  // carry their connection.
  struct Slot final : proto::Http2ClientSession::Events {
    Http2Driver* driver = nullptr;
    Connection* connection = nullptr;
    std::unique_ptr<proto::Http2ClientSession> session;
    void OnStreamEnd(const proto::StreamEnd& end) override { driver->EndStream(*connection, end); }
    void OnProgress(uint32_t tag, proto::ResponseProgress progress) override {
      driver->Progress(*connection, tag, progress);
    }
    void OnBody(uint32_t tag, std::string_view piece) override {
      driver->Body(*connection, tag, piece);
    }
  };

  void Submit(Connection& c, uint32_t k) override;
  void Cancel(Connection& c, uint32_t k) override { Session(c).Cancel(k); }
  proto::Http2ClientSession& Session(const Connection& c) { return *slots_[c.slot].session; }
  // The connection closed or failed under its streams.
  void Lose(Connection& c, int error);

  proto::Http2Memory memory_;  // Shared by the worker's sessions.
  std::vector<Slot> slots_;
};

}  // namespace uringload::core
