// Connection: one client connection's state machine, as in wrk:
//   kIdle -> kConnecting -> kActive (send, receive, parse; repeat per request) -> kClosing
//   -> kIdle (reconnect for the next request) or kDone.
// All memory is allocated once per worker; nothing here grows with the request count. Which
// I/O is pending on the slot is the event loop's to know (net::EventLoop).
#pragma once

#include <cstdint>

#include "net/timer_wheel.h"
#include "proto/request_template.h"
#include "proto/response_parser.h"

namespace uringload::core {

enum class ConnState : uint8_t { kIdle, kConnecting, kActive, kClosing, kDone };

struct Connection {
  net::TimerNode timer;  // First member: the timer wheel hands back a TimerNode*.
  proto::ResponseParser parser;
  proto::RenderedRequest request;
  uint64_t index = 0;               // Request in flight (valid while has_request).
  int64_t sent_at_ns = 0;           // Just before the submit that carried the request.
  const char* send_data = nullptr;  // The rendered request (template or own storage).
  uint32_t slot = 0;                // Direct descriptor slot, fixed for the connection's life.
  uint16_t target = 0;              // Index into the plan's targets.
  int16_t source = -1;              // Index into the plan's sources; -1: the kernel chooses.
  uint32_t send_offset = 0;         // Bytes of the current request already sent.
  uint32_t send_size = 0;
  ConnState state = ConnState::kIdle;
  bool has_request = false;  // A started request that has no outcome yet.
  bool open = false;         // Counted in connections_open.
  bool ramped = false;       // Its first connect attempt has ended (see Worker ramp).
};

}  // namespace uringload::core
