// ServerHttp2Driver: serve's HTTP/2 (--http2: h2c, or h2 chosen by ALPN over TLS). Each
// request is a stream of the connection's Http2ServerSession, gets its delay and fault on
// arrival, and is answered when its delay ends, in whatever order that makes. Frames go out
// through the connection's one send at a time, as HTTP/1.1 bursts do.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "core/serve/server_driver.h"
#include "proto/http2_memory.h"
#include "proto/http2_server_session.h"

namespace uringload::core {

class ServerHttp2Driver final : public ServerDriver {
 public:
  ServerHttp2Driver(ServerHost* host, const ServerEnv& env, uint32_t slots);

  void Open(uint32_t slot, ServerConnection& c) override;
  void OnData(uint32_t slot, ServerConnection& c, std::string_view data) override;
  void Pump(uint32_t slot, ServerConnection& c) override;
  void OnSent(uint32_t slot, ServerConnection& c, uint32_t bytes) override;
  void Release(uint32_t slot, ServerConnection& c) override;

 private:
  // A stream's response waiting for its moment.
  struct Response {
    int64_t ready_at_ns = 0;
    int32_t stream_id = 0;
    Fault fault = Fault::kNone;
    uint8_t echo_size = 0;
    char echo[proto::RequestParser::kMaxEcho];
  };
  // A connection's session and its waiting responses: made on a slot's first HTTP/2
  // connection and kept for the slot's later ones. Its events carry their slot.
  struct Slot final : proto::Http2ServerSession::Events {
    explicit Slot(ServerHttp2Driver* d, uint32_t s, proto::Http2Memory* memory)
        : driver(d), slot(s), session(memory) {}
    void OnRequest(const proto::Http2ServerSession::Request& request) override {
      driver->OnRequest(*this, request);
    }
    ServerHttp2Driver* driver;
    uint32_t slot;
    proto::Http2ServerSession session;
    std::vector<Response> waiting;
    uint32_t requests = 0;           // Processed on this connection (--http2-goaway-after).
    int32_t goaway_last_stream = 0;  // The GOAWAY sent named this stream (0: none sent).
    // A connection fault (reset, no close_notify, malformed frame): no stream is answered any
    // more, what is queued goes out, then the connection closes (with close_notify or not).
    bool closing = false;
    bool close_notify = true;
    bool malformed_due = false;  // The malformed frame goes out last.
    // After the malformed frame: the client closes on the protocol error. Closing first with
    // its requests unread would send a RST that can overtake the frame (and turn the fault
    // into a reset); the server closes itself only at this deadline.
    int64_t malformed_close_at_ns = 0;
  };

  void OnRequest(Slot& s, const proto::Http2ServerSession::Request& request);
  // One stream's answer, or its fault (a connection fault sets it closing).
  void Answer(Slot& s, const Response& r);
  // Sends what the session has ready, unless a send is in flight; closes a connection the
  // session is done with, or a closing one once all has gone out.
  void Flush(uint32_t slot, ServerConnection& c);

  ServerHost* host_;
  ServerEnv env_;
  proto::Http2Memory memory_;  // Shared by the connections' sessions.
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace uringload::core
