// ServerConnection: one accepted connection of `uringload serve`. Requests are parsed as they
// arrive and queued (pipelining); each gets its delay and fault drawn on arrival and is
// answered in order when its time comes. Responses due together go out in one send (a burst).
#pragma once

#include <cstdint>
#include <memory>

#include "core/serve/serve_plan.h"
#include "net/timer_wheel.h"
#include "proto/request_parser.h"
#include "proto/response_builder.h"

namespace uringload::core {

struct PendingResponse {
  int64_t ready_at_ns = 0;
  Fault fault = Fault::kNone;
  uint16_t reject_status = 0;  // 400 or 431: the request could not be parsed; close after.
  bool keep_alive = true;
  uint8_t echo_size = 0;
  char echo[proto::RequestParser::kMaxEcho];
};

// A server connection's state. Allowed transitions:
//   kFree --accept--> kOpen --stall fault--> kStalled   (held open, never answered again)
//   kOpen --unparsable request--> kRejected             (400/431 after the queue, then close)
//   kOpen, kStalled, kRejected --Close--> kFree
enum class ServerConnState : uint8_t { kFree, kOpen, kStalled, kRejected };

struct ServerConnection {
  // 16: what `run -p 16` and `h2load -m 16` keep in flight. Each slot is 48 bytes of every
  // connection's memory, so the queue is not sized for the client's -p maximum (1024).
  static constexpr uint8_t kMaxPipelined = 16;
  // Room for the responses of one burst; a response that does not fit starts the next send.
  static constexpr size_t kBurstBytes = 4096;

  net::TimerNode timer;  // Fires when the head response is due.
  proto::RequestParser parser;
  PendingResponse pending[kMaxPipelined];
  uint8_t head = 0;
  uint8_t count = 0;
  char out[proto::kMaxResponseHead + proto::RequestParser::kMaxEcho];  // Echo responses.
  // Allocated the first time this slot answers two requests at once and kept for the slot's
  // later connections: memory for pipelining clients only, never per request.
  std::unique_ptr<char[]> burst;
  const char* send_data = nullptr;
  uint32_t send_size = 0;
  ServerConnState state = ServerConnState::kFree;
  bool in_use() const { return state != ServerConnState::kFree; }
  bool send_pending = false;
  bool close_after_send = false;
  bool continue_sent = false;  // 100 Continue already owed or sent for the current request.
  bool continue_due = false;   // 100 Continue to send once earlier responses are out.

  PendingResponse& Head() { return pending[head]; }
  const PendingResponse& Head() const { return pending[head]; }
  PendingResponse& Tail() { return pending[(head + count) % kMaxPipelined]; }
  void Pop() {
    head = (head + 1) % kMaxPipelined;
    --count;
  }
};

}  // namespace uringload::core
