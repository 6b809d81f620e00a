// ServerDriver: what one protocol does on serve's connections, as the client's drivers do on
// run's (core/run/connection_driver.h). ServerWorker owns the ring, the connection slots, the
// timers, the draws of each request's delay and fault, and the stats, and knows no protocol;
// a driver keeps its per-connection state by slot, reads requests from the bytes a
// connection received and answers them when they are due, through the ServerHost.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/serve/request_log.h"
#include "core/serve/serve_plan.h"
#include "core/serve/server_connection.h"
#include "core/serve/server_stats.h"
#include "net/event_loop.h"
#include "net/listener.h"

namespace uringload::core {

// Prebuilt responses shared by all workers when the body does not depend on the request.
struct FixedResponses {
  std::string ok_keep_alive, ok_close, status_keep_alive, status_close;
};

// A request's answer, drawn when it arrives: when it is due and which fault it carries.
struct AnswerDraw {
  int64_t ready_at_ns = 0;
  Fault fault = Fault::kNone;
};

class ServerHost {
 public:
  virtual AnswerDraw Draw(int64_t now) = 0;
  virtual ServerConnection& Conn(uint32_t slot) = 0;
  // One send in flight per connection; `then_close`: the connection ends after it.
  virtual void Send(uint32_t slot, ServerConnection& c, std::string_view bytes,
                    bool then_close) = 0;
  // `notify`: over TLS, send close_notify first (not for the no_close_notify fault).
  virtual void Close(uint32_t slot, bool notify = true) = 0;
  // The descriptor table is full: counted, and said once with `advice`.
  virtual void TableFull(std::string_view advice) = 0;

 protected:
  ~ServerHost() = default;
};

// What every server driver reads, set once by the worker.
struct ServerEnv {
  const ServePlan* plan = nullptr;
  const FixedResponses* fixed = nullptr;
  ServerStats* stats = nullptr;
  net::EventLoop* loop = nullptr;
  RequestLog::Writer* log = nullptr;  // --log-requests (null: none).
};

class ServerDriver {
 public:
  virtual ~ServerDriver() = default;
  // A connection was accepted speaking this protocol.
  virtual void Open(uint32_t slot, ServerConnection& c) = 0;
  virtual void OnData(uint32_t slot, ServerConnection& c, std::string_view data) = 0;
  // Its timer fired or its send completed: answers what is due, sends what is ready.
  virtual void Pump(uint32_t slot, ServerConnection& c) = 0;
  // `bytes` of the send in flight went out (the worker closes after a short one).
  virtual void OnSent(uint32_t /*slot*/, ServerConnection& /*c*/, uint32_t /*bytes*/) {}
  // The connection closed: its protocol state goes back while the slot has none.
  virtual void Release(uint32_t /*slot*/, ServerConnection& /*c*/) {}

  // A driver with a transport of its own (QUIC) takes every completion and timer of its slots.
  virtual void Listen(std::span<const net::UniqueFd> /*listeners*/) {}
  virtual void OnCompletion(const net::Completion& /*completion*/) {}
  virtual void OnTransportTimer(uint32_t /*slot*/) {}
};

// The timer owner bit of a driver's own per-connection timer (owner: slot | kServerTransportTimer).
inline constexpr uint32_t kServerTransportTimer = 1u << 31;

}  // namespace uringload::core
