#include "core/run/connection_opener.h"

#include <algorithm>

namespace uringload::core {

ConnectionOpener::ConnectionOpener(const RunPlan& plan, uint32_t first_connection,
                                   std::span<Connection> connections, net::EventLoop* loop,
                                   const Drivers* drivers, WorkerStats* stats,
                                   int64_t connect_timeout_ns, const int64_t* started_ns)
    : plan_(plan),
      connections_(connections),
      loop_(loop),
      drivers_(drivers),
      stats_(stats),
      connect_timeout_ns_(connect_timeout_ns),
      started_ns_(started_ns),
      ramp_(plan.max_connecting, static_cast<uint32_t>(connections.size())) {
  size_t sources = std::max<size_t>(1, plan.sources.size());
  size_t pairs = sources * plan.addresses.size();
  for (uint32_t i = 0; i < connections.size(); ++i) {
    size_t pair = (first_connection + i) % pairs;
    connections[i].source = plan.sources.empty() ? -1 : static_cast<int16_t>(pair % sources);
    connections[i].address = static_cast<uint16_t>(pair / sources);
  }
}

void ConnectionOpener::Request(Connection& c) {
  if (c.first_connect == FirstConnect::kNotAsked) {  // The ramp ends when every one has.
    c.first_connect = FirstConnect::kAsked;
    ++remaining_;
  }
  if (ramp_.TryAdmit()) {
    Connect(c);
  } else {
    ramp_.Enqueue(c.slot);  // Stays kIdle with its request until a place frees up.
  }
}

void ConnectionOpener::AdmitQueued() {
  uint32_t slot;
  while (ramp_.PopAdmitted(&slot)) {
    Connection& c = connections_[slot];
    if (c.state == ConnState::kDone) {  // Aborted while it waited.
      ramp_.Release();
      continue;
    }
    Connect(c);
  }
}

void ConnectionOpener::Connect(Connection& c) {
  c.state = ConnState::kConnecting;
  c.connect_started_ns = loop_->Now();
  loop_->timers().Schedule(&c.timer, c.connect_started_ns + connect_timeout_ns_);
  if (ConnectionDriver* own = drivers_->own_transport()) {  // QUIC: a UDP socket of its own.
    c.driver = own;
    own->Connect(c);
    return;
  }
  if (plan_.origins.size() > 1) loop_->SetPeer(c.slot, c.origin);
  loop_->Connect(c.slot, plan_.AddressOf(c.origin, c.address),
                 c.source >= 0 ? &plan_.sources[c.source] : nullptr);
}

void ConnectionOpener::Leave(Connection& c) {
  c.state = ConnState::kIdle;
  ramp_.Release();
  if (c.first_connect == FirstConnect::kAsked) {
    c.first_connect = FirstConnect::kEnded;
    if (--remaining_ == 0) stats_->RampFinished(loop_->Now() - *started_ns_);
  }
}

}  // namespace uringload::core
