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

#include "core/serve/serve_plan.h"
#include "net/base/check.h"
#include "net/timer_wheel.h"
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

class ServerDriver;

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
  // What it speaks (core/serve/server_driver.h), chosen when it is accepted.
  ServerDriver* driver = nullptr;

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
