// ServerConnection: one accepted connection of `uringload serve`. Requests are parsed as they
// arrive and queued (pipelining); each gets its delay and fault drawn on arrival and is
// answered in order, one send at a time, when its time comes.
#pragma once

#include <cstdint>

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
  static constexpr uint8_t kMaxPipelined = 8;

  net::TimerNode timer;  // Fires when the head response is due.
  proto::RequestParser parser;
  PendingResponse pending[kMaxPipelined];
  uint8_t head = 0;
  uint8_t count = 0;
  char out[proto::kMaxResponseHead + proto::RequestParser::kMaxEcho];  // Echo responses.
  const char* send_data = nullptr;
  uint32_t send_size = 0;
  ServerConnState state = ServerConnState::kFree;
  bool in_use() const { return state != ServerConnState::kFree; }
  bool send_pending = false;
  bool close_after_send = false;
  bool continue_sent = false;  // 100 Continue already owed or sent for the current request.
  bool continue_due = false;   // 100 Continue to send once earlier responses are out.

  PendingResponse& Head() { return pending[head]; }
  PendingResponse& Tail() { return pending[(head + count) % kMaxPipelined]; }
  void Pop() {
    head = (head + 1) % kMaxPipelined;
    --count;
  }
};

}  // namespace uringload::core
