// Http3Driver: HTTP/3 on a worker's connections, each a connected UDP socket on the worker's
// one ring under an Http3Connection (QUIC and HTTP/3 in memory), QUIC's timer on the same
// timer wheel. It brings its own transport: the connection is kConnecting until QUIC's
// handshake ends, as a TCP one is until its connect (and TLS handshake) does, and its requests
// wait in the ring meanwhile. One send in flight per connection, of up to
// net::kQuicSendPackets packets joined by UDP_SEGMENT.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/run/http3_connection.h"
#include "core/run/stream_driver.h"
#include "net/quic_send_buffers.h"

namespace uringload::core {

class Http3Driver final : public StreamDriver {
 public:
  Http3Driver(DriverHost* host, const DriverEnv& env);

  void Connect(Connection& c) override;
  void OnConnected(Connection& c, const net::Completion& completion) override;
  void OnConnectTimeout(Connection& c) override;
  void Open(Connection& c) override;
  uint32_t Capacity(const Connection& c) const override;
  void Flush(Connection& c) override;
  void OnSent(Connection& c, int res) override;
  void OnReceived(Connection& c, const net::Completion& completion) override;
  void OnTransportTimer(Connection& c, int64_t now) override;  // QUIC's expiry.
  void OnClose(Connection& c) override;
  void Release(Connection& c) override;

 private:
  // A slot's QUIC connection and its events, which carry their connection.
  struct Slot final : Http3Connection::Events {
    Http3Driver* driver = nullptr;
    Connection* connection = nullptr;
    net::TimerNode expiry;    // QUIC's own timer (owner: slot | kTransportTimer).
    net::QuicSendBuffer out;  // The packets of the send in flight (from buffers_).
    std::unique_ptr<Http3Connection> h3;
    int64_t socket_ns = 0;           // Connect call to the connected UDP socket.
    uint32_t streams_opened = 0;     // Since the handshake (--no-keepalive: one).
    bool ready = false;              // The handshake ended during the last input (OnReady).
    bool ticket_taken = false;       // Its session was kept for the connections after it.
    uint64_t losses_counted = 0;     // Of QUIC's packets_lost, those in the stats.
    bool handshake_counted = false;  // Its handshake is in the stats (0-RTT: after it opened).
    bool resubmit = false;           // The server refused the 0-RTT data: the requests go again.
    void OnReady() override { ready = true; }
    void OnEarlyDataRejected() override { resubmit = true; }
    void OnStreamEnd(const proto::StreamEnd& end) override { driver->EndStream(*connection, end); }
    void OnProgress(uint32_t tag, proto::ResponseProgress progress) override {
      driver->Progress(*connection, tag, progress);
    }
    void OnBody(uint32_t tag, std::string_view piece) override {
      driver->Body(*connection, tag, piece);
    }
  };

  bool MayOpen(const Connection& c) const override;
  void Submit(Connection& c, uint32_t k) override;
  void Cancel(Connection& c, uint32_t k) override { Http3Of(c).Cancel(k); }
  Http3Connection& Http3Of(const Connection& c) { return *slots_[c.slot].h3; }
  // After input (datagrams, an expiry): a handshake that ended opens the connection, stream
  // ends refill it, and what QUIC has to send goes out.
  void AfterQuicInput(Connection& c, uint16_t open_before, uint32_t responses_before);
  bool SendPackets(Connection& c);
  void ScheduleExpiry(Connection& c);
  // The packets QUIC declared lost since the last look (ACKs and loss timers) into the stats.
  void CountLosses(Connection& c);
  // The QUIC connection ended (end() says how): every request on it gets its outcome.
  void End(Connection& c);
  void Lose(Connection& c, Outcome outcome, int cause);
  // The handshake's numbers into the stats, once it ended (with 0-RTT, after it opened).
  void CountHandshake(Connection& c);
  // Refused 0-RTT: every request in flight goes again on a new stream of the connection.
  void Resubmit(Connection& c);

  std::vector<Slot> slots_;
  // The session the last connection's server gave, resumed by the next connects.
  // What the last connection to each origin kept to resume: its ticket and (--0rtt) its
  // server's transport parameters.
  struct Resumption {
    std::vector<uint8_t> ticket;
    std::vector<uint8_t> early_params;
  };
  std::vector<Resumption> resumption_;  // By origin.
  net::QuicSendBuffers buffers_;
};

}  // namespace uringload::core
