// ServerHttp3Driver: serve's HTTP/3 (--http3), a driver with its own transport. The listeners
// are UDP sockets whose receives name the sender. A new client's Initial makes a connection
// in a free slot, with a UDP socket of its own bound to the listener's port and connected to
// the client, which the kernel then gives that client's datagrams; a datagram that still
// reaches a listener, or another client's socket in the moment before its connect, is found
// its connection by the sender's address. Requests get their delay and fault on arrival and
// are answered when the delay ends, as over HTTP/2. One send in flight per connection.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/serve/http3_server_connection.h"
#include "core/serve/server_driver.h"
#include "net/quic_send_buffers.h"

namespace uringload::core {

class ServerHttp3Driver final : public ServerDriver {
 public:
  ServerHttp3Driver(ServerHost* host, const ServerEnv& env, uint32_t slots);

  void Listen(std::span<const net::UniqueFd> listeners) override;
  void OnCompletion(const net::Completion& completion) override;
  void OnTransportTimer(uint32_t slot) override;  // QUIC's expiry.
  void Open(uint32_t /*slot*/, ServerConnection& /*c*/) override {}
  void OnData(uint32_t /*slot*/, ServerConnection& /*c*/, std::string_view /*data*/) override {}
  void Pump(uint32_t slot, ServerConnection& c) override;
  void Release(uint32_t slot, ServerConnection& c) override;

 private:
  // A request's answer waiting for its moment.
  struct Response {
    int64_t ready_at_ns = 0;
    int64_t stream_id = 0;
    uint32_t handle = 0;  // Its entry in the session's stream pool.
    Fault fault = Fault::kNone;
  };
  // A connection: its own UDP socket connected to the client from the listener's port, QUIC
  // and HTTP/3 in memory, and its waiting answers. Made on a slot's first HTTP/3 connection
  // and kept for the slot's later ones. Its events carry their slot.
  struct Slot final : Http3ServerConnection::Events {
    void OnRequest(const proto::Http3ServerSession::Request& request) override {
      driver->OnRequest(*this, request);
    }
    ServerHttp3Driver* driver = nullptr;
    uint32_t slot = 0;
    Http3ServerConnection connection;
    net::TimerNode expiry;    // QUIC's own timer (owner: slot | kServerTransportTimer).
    net::QuicSendBuffer out;  // The packets of the send in flight (from buffers_).
    std::vector<Response> waiting;
    net::SocketAddress peer;  // The client: its socket connects to it.
    std::string peer_key;     // The client's sockaddr bytes: what its slot is found by.
    uint32_t listener = 0;    // The listener whose port the socket shares.
    uint32_t requests = 0;    // Processed on this connection (for --http2-goaway-after).
    bool connected = false;   // The socket's connect completed: packets may go out.
    bool handshake_counted = false;
  };

  Slot& SlotOf(uint32_t slot);
  void OnDatagrams(uint32_t slot, const net::Completion& completion);
  // The slot whose connection the datagram from `peer` is for, a new connection when it is a
  // new client's Initial (which it read: `*read`), or -1 (dropped).
  int64_t SlotFor(std::string_view peer, socklen_t peer_length, uint32_t listener,
                  std::span<const uint8_t> datagram, bool* read);
  int64_t Accept(std::string_view peer, socklen_t peer_length, uint32_t listener,
                 std::span<const uint8_t> initial);
  void OnRequest(Slot& s, const proto::Http3ServerSession::Request& request);
  void Answer(Slot& s, const Response& r);
  // Sends what QUIC has due (one send in flight), moves QUIC's timer, and closes a connection
  // that ended once its CONNECTION_CLOSE went.
  void Flush(uint32_t slot, ServerConnection& c);

  ServerHost* host_;
  ServerEnv env_;
  uint32_t listeners_ = 0;  // Slots below it are the listeners.
  std::vector<std::unique_ptr<Slot>> slots_;
  // The slots past the listeners' no connection holds (closed ones return on kClose), and
  // each client's slot by its address.
  std::vector<uint32_t> free_slots_;
  absl::flat_hash_map<std::string, uint32_t> slot_of_peer_;
  net::QuicSendBuffers buffers_;
};

}  // namespace uringload::core
