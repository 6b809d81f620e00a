// ConnectionOpener: how a worker opens its connections. Each goes to a (source, target) pair,
// round-robin, so each pair's ephemeral ports carry an equal share; at most --max-connecting
// connects are in flight (ConnectRamp), the others wait their turn in order, kIdle with their
// request; a connect runs under --connect-timeout on the connection's timer. The event loop
// opens the socket (linked socket+connect, or a bound one); a protocol with its own transport
// (QUIC) connects through its driver. The ramp ends, and is timed, when every connection's
// first attempt has ended.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "core/run/connect_ramp.h"
#include "core/run/connection.h"
#include "core/run/drivers.h"
#include "core/run/run_plan.h"
#include "core/run/worker_stats.h"
#include "net/event_loop.h"

namespace uringload::core {

class ConnectionOpener {
 public:
  // `first_connection`: the global index of the worker's first (where its routes start);
  // `drivers`: the worker's (a protocol with its own transport connects itself);
  // `started_ns`: when the worker started, for the ramp's duration.
  ConnectionOpener(const RunPlan& plan, uint32_t first_connection,
                   std::span<Connection> connections, net::EventLoop* loop, const Drivers* drivers,
                   WorkerStats* stats, int64_t connect_timeout_ns, const int64_t* started_ns);

  // The connection connects now, or waits for a place in the ramp (then kIdle, Queued).
  void Request(Connection& c);
  // The queued ones whose turn came connect.
  void AdmitQueued();
  // Every way out of kConnecting passes here: it frees a ramp place and ends the ramp.
  void Leave(Connection& c);
  // Waiting in the ramp's queue: its first connect was asked for and has neither begun nor
  // ended.
  bool Queued(const Connection& c) const {
    return c.first_connect == FirstConnect::kAsked && c.state == ConnState::kIdle;
  }

 private:
  void Connect(Connection& c);

  const RunPlan& plan_;
  std::span<Connection> connections_;
  net::EventLoop* loop_;
  const Drivers* drivers_;
  WorkerStats* stats_;
  int64_t connect_timeout_ns_;
  const int64_t* started_ns_;
  ConnectRamp ramp_;
  uint32_t remaining_ = 0;  // Connections whose first connect attempt has not ended.
};

}  // namespace uringload::core
