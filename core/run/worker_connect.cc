// How a worker opens connections: routes over (source, target) pairs and the connect ramp. The
// event loop opens the socket (linked socket+connect, or a bound one).
#include "core/run/worker.h"

namespace uringload::core {

// Connections go round-robin over every (source, target) pair, so each pair's ephemeral
// ports carry an equal share.
void Worker::AssignRoutes() {
  const RunPlan& plan = *config_.plan;
  size_t sources = std::max<size_t>(1, plan.sources.size());
  size_t pairs = sources * plan.addresses.size();
  for (uint32_t i = 0; i < connections_.size(); ++i) {
    size_t pair = (config_.first_connection + i) % pairs;
    connections_[i].source = plan.sources.empty() ? -1 : static_cast<int16_t>(pair % sources);
    connections_[i].address = static_cast<uint16_t>(pair / sources);
  }
}

void Worker::RequestConnect(Connection& c) {
  if (c.first_connect == FirstConnect::kNotAsked) {  // The ramp ends when every one has.
    c.first_connect = FirstConnect::kAsked;
    ++ramp_remaining_;
  }
  if (ramp_->TryAdmit()) {
    Connect(c);
  } else {
    ramp_->Enqueue(c.slot);  // Stays kIdle with its request until a place frees up.
  }
}

// Waiting in the ramp's queue: its first connect was asked for and has neither begun nor ended.
bool Worker::Queued(const Connection& c) const {
  return c.first_connect == FirstConnect::kAsked && c.state == ConnState::kIdle;
}

void Worker::AdmitQueuedConnects() {
  uint32_t slot;
  while (ramp_->PopAdmitted(&slot)) {
    Connection& c = connections_[slot];
    if (c.state == ConnState::kDone) {  // Aborted while it waited.
      ramp_->Release();
      continue;
    }
    Connect(c);
  }
}

void Worker::Connect(Connection& c) {
  c.state = ConnState::kConnecting;
  c.connect_started_ns = loop_->Now();
  loop_->timers().Schedule(&c.timer, c.connect_started_ns + connect_timeout_ns_);
  if (ConnectionDriver* own = drivers_.own_transport()) {  // QUIC: a UDP socket of its own.
    c.driver = own;
    own->Connect(c);
    return;
  }
  const RunPlan& plan = *config_.plan;
  if (plan.origins.size() > 1) loop_->SetPeer(c.slot, c.origin);
  loop_->Connect(c.slot, plan.AddressOf(c.origin, c.address),
                 c.source >= 0 ? &plan.sources[c.source] : nullptr);
}

// Every way out of kConnecting passes here: it frees a ramp place and ends the ramp.
void Worker::LeaveConnecting(Connection& c) {
  c.state = ConnState::kIdle;
  ramp_->Release();
  if (c.first_connect == FirstConnect::kAsked) {
    c.first_connect = FirstConnect::kEnded;
    if (--ramp_remaining_ == 0) stats_->RampFinished(loop_->Now() - started_ns_);
  }
}

}  // namespace uringload::core
