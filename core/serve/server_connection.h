// ServerConnection: one accepted connection of `uringload serve`. Requests are parsed as they
// arrive and queued (pipelining); each gets its delay and fault drawn on arrival and is
// answered in order when its time comes. Responses due together go out in one send (a burst).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/serve/http3_server_connection.h"
#include "core/serve/serve_plan.h"
#include "net/base/check.h"
#include "net/quic_send_buffers.h"
#include "net/timer_wheel.h"
#include "proto/http2_server_session.h"
#include "proto/request_parser.h"
#include "proto/response_builder.h"

namespace uringload::core {

struct PendingResponse {
  int64_t ready_at_ns = 0;
  Fault fault = Fault::kNone;
  uint16_t reject_status = 0;  // 400 or 431: the request could not be parsed; close after.
  bool keep_alive = true;
  bool head = false;  // A HEAD request: the response without its body.
  uint8_t echo_size = 0;
  char echo[proto::RequestParser::kMaxEcho];
};

// HTTP/2 (core/serve/server_http2.cc): a stream's response waiting for its moment. Streams
// are answered in the order their delays end, not the order they came.
struct Http2Response {
  int64_t ready_at_ns = 0;
  int32_t stream_id = 0;
  Fault fault = Fault::kNone;
  uint8_t echo_size = 0;
  char echo[proto::RequestParser::kMaxEcho];
};

// An HTTP/2 connection's session and its waiting responses: made on a slot's first HTTP/2
// connection and kept for the slot's later ones.
struct ServerHttp2 {
  explicit ServerHttp2(proto::Http2Memory* memory) : session(memory) {}

  proto::Http2ServerSession session;
  std::vector<Http2Response> waiting;
  uint32_t requests = 0;           // Processed on this connection (for --http2-goaway-after).
  int32_t goaway_last_stream = 0;  // The GOAWAY sent named this stream (0: none sent).
  // A connection fault (reset, no close_notify, malformed frame): no stream is answered any
  // more, what is queued goes out, then the connection closes (with close_notify or not).
  bool closing = false;
  bool close_notify = true;
  bool malformed_due = false;  // The malformed frame goes out last.
  // After the malformed frame: the client closes on the protocol error. Closing first with
  // its requests unread would send a RST that can overtake the frame (and turn the fault into
  // a reset); the server closes itself only at this deadline.
  int64_t malformed_close_at_ns = 0;
};

// HTTP/3 (core/serve/server_http3.cc): a request's answer waiting for its moment.
struct Http3Response {
  int64_t ready_at_ns = 0;
  int64_t stream_id = 0;
  uint32_t handle = 0;  // Its entry in the session's stream pool.
  Fault fault = Fault::kNone;
};

// An HTTP/3 connection: its own UDP socket connected to the client from the listener's
// port, QUIC and HTTP/3 in memory, and its waiting answers. Made on a slot's first HTTP/3
// connection and kept for the slot's later ones.
struct ServerHttp3 {
  Http3ServerConnection connection;
  net::TimerNode expiry;    // QUIC's own timer (owner: slot | ServerWorker::kQuicTimer).
  net::QuicSendBuffer out;  // The packets of the send in flight (the worker's QuicSendBuffers).
  std::vector<Http3Response> waiting;
  net::SocketAddress peer;  // The client: its socket connects to it.
  std::string peer_key;     // The client's sockaddr bytes: what its slot is found by.
  uint32_t listener = 0;    // The listener whose port the socket shares.
  uint32_t requests = 0;    // Processed on this connection (for --http2-goaway-after).
  bool connected = false;   // The socket's connect completed: packets may go out.
  bool handshake_counted = false;
};

// HTTP/2's and HTTP/3's streams are answered in the order their delays end: hands each
// waiting answer whose moment has come to `answer` (which returns false to stop: the
// connection ended), and returns the earliest moment of those left (INT64_MAX: none).
template <typename Response, typename Answer>
int64_t AnswerDue(std::vector<Response>& waiting, int64_t now, Answer answer) {
  int64_t next = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < waiting.size();) {
    if (waiting[i].ready_at_ns > now) {
      next = std::min(next, waiting[i].ready_at_ns);
      ++i;
      continue;
    }
    Response r = waiting[i];
    waiting[i] = waiting.back();
    waiting.pop_back();
    if (!answer(r)) break;
  }
  return next;
}

// A server connection's state. Allowed transitions:
//   kFree --accept--> kOpen --stall fault--> kStalled   (held open, never answered again)
//   kOpen --unparsable request--> kRejected             (400/431 after the queue, then close)
//   kOpen, kStalled, kRejected --Close--> kFree
enum class ServerConnState : uint8_t { kFree, kOpen, kStalled, kRejected };

struct ServerConnection {
  // 16: what `run -p 16` and `h2load -m 16` keep in flight, not the client's -p maximum (1024).
  static constexpr uint8_t kMaxPipelined = 16;
  // Queued responses held inside the connection; a deeper queue is allocated once per slot.
  // Two rather than 16: each entry is 48 bytes of every connection, pipelining or not (16
  // inline made the server's RSS at 100,000 connections 168.1 MB against 129.9 MB with 8).
  static constexpr uint8_t kInlinePending = 2;
  // Room for the responses of one burst; a response that does not fit starts the next send.
  static constexpr size_t kBurstBytes = 4096;

  ServerConnection() = default;
  ServerConnection(const ServerConnection&) = delete;  // `pending` may point into itself.
  ServerConnection& operator=(const ServerConnection&) = delete;

  net::TimerNode timer;  // Fires when the head response is due.
  proto::RequestParser parser;
  uint8_t head = 0;
  uint8_t count = 0;
  uint8_t capacity = kInlinePending;
  ServerConnState state = ServerConnState::kFree;
  bool in_use() const { return state != ServerConnState::kFree; }
  // Flags beside the state, each with its invariant (they are not states: a connection in
  // kOpen, kStalled or kRejected can have a send in flight):
  // send_pending: one send is in flight (at most one; its completion pumps the queue).
  // close_after_send: the send in flight ends the connection; meaningful only with send_pending.
  // continue_sent: 100 Continue is owed or sent for the request being parsed (reset per request).
  // continue_due: owed and not yet sent; implies continue_sent, cleared when sent or rejected.
  bool send_pending = false;
  bool close_after_send = false;
  bool continue_sent = false;
  bool continue_due = false;
  uint32_t send_size = 0;
  const char* send_data = nullptr;
  PendingResponse* pending = inline_pending;  // A ring of `capacity` entries.
  PendingResponse inline_pending[kInlinePending];
  // Allocated the first time this slot queues a third request or answers two at once, then
  // kept for the slot's later connections: memory for pipelining clients, never per request.
  std::unique_ptr<PendingResponse[]> deep_pending;
  std::unique_ptr<char[]> burst;
  std::string logged;  // --log-requests: the bytes of the request being parsed.
  char out[proto::kMaxResponseHead + proto::RequestParser::kMaxEcho];  // Echo responses.
  // The connection speaks HTTP/2 (serve --http2: h2c, or h2 chosen by ALPN); h2 holds it.
  bool http2 = false;
  std::unique_ptr<ServerHttp2> h2;
  // The connection speaks HTTP/3 (serve --http3); h3 holds it.
  bool http3 = false;
  std::unique_ptr<ServerHttp3> h3;

  bool Full() const { return count == kMaxPipelined; }
  PendingResponse& Head() { return pending[head]; }
  const PendingResponse& Head() const { return pending[head]; }
  // The entry behind the last one, counted in; the caller fills it.
  PendingResponse& Push() {
    URINGLOAD_CHECK(!Full(), "%u queued", count);
    if (count == capacity) Grow();
    ++count;
    return pending[(head + count - 1) % capacity];
  }
  void Pop() {
    URINGLOAD_CHECK(count > 0, "head %u", head);
    head = (head + 1) % capacity;
    --count;
  }

 private:
  void Grow() {
    if (!deep_pending) deep_pending = std::make_unique<PendingResponse[]>(kMaxPipelined);
    for (uint8_t i = 0; i < count; ++i) deep_pending[i] = pending[(head + i) % capacity];
    pending = deep_pending.get();
    capacity = kMaxPipelined;
    head = 0;
  }
};

}  // namespace uringload::core
