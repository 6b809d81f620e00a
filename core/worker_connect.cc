// Worker, part two: how connections get opened: routes over (source, target) pairs, the
// connect ramp, linked socket+connect or a bound socket installed into the slot.
#include <sys/socket.h>

#include "core/worker.h"
#include "net/client_socket.h"
#include "net/clock.h"

namespace uringload::core {

// Connections go round-robin over every (source, target) pair, so each pair's ephemeral
// ports carry an equal share.
void Worker::AssignRoutes() {
  const RunPlan& plan = *config_.plan;
  size_t sources = std::max<size_t>(1, plan.sources.size());
  size_t pairs = sources * plan.targets.size();
  for (uint32_t i = 0; i < connections_.size(); ++i) {
    size_t pair = (config_.first_connection + i) % pairs;
    connections_[i].source = plan.sources.empty() ? -1 : static_cast<int16_t>(pair % sources);
    connections_[i].target = static_cast<uint16_t>(pair / sources);
  }
}

void Worker::RequestConnect(Connection& c) {
  if (ramp_->TryAdmit()) {
    Connect(c);
  } else {
    ramp_->Enqueue(c.slot);  // Stays kIdle with its request until a place frees up.
  }
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
  c.socket_error = 0;
  wheel_->Schedule(&c.timer, net::MonotonicNanos() + connect_timeout_ns_);
  if (c.source >= 0) {
    ConnectFrom(c, config_.plan->sources[c.source]);
    return;
  }
  const net::SocketAddress& target = config_.plan->targets[c.target];
  ring_->Reserve(2);  // socket -> connect is one linked chain.
  io_uring_sqe* sqe = ring_->GetSqe();
  io_uring_prep_socket_direct(sqe, target.family(), SOCK_STREAM, 0, c.slot, 0);
  sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
  io_uring_sqe_set_data64(sqe, PackUserData(c.slot, c.generation, Op::kSocket));
  sqe = ring_->GetSqe();
  io_uring_prep_connect(sqe, c.slot, target.get(), target.length);
  sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, PackUserData(c.slot, c.generation, Op::kConnect));
}

// io_uring 2.3 cannot bind: a normal socket is bound (IP_BIND_ADDRESS_NO_PORT), installed in
// the slot and closed, costing a few syscalls per connection, not per request.
void Worker::ConnectFrom(Connection& c, const net::SocketAddress& source) {
  int error = 0;
  net::UniqueFd fd = net::OpenBoundClientSocket(source, &error);
  if (fd.get() >= 0) error = -ring_->InstallFile(c.slot, fd.get());
  if (error != 0) {
    FinishRequest(c, Outcome::kConnectError, error);
    Close(c);
    return;
  }
  const net::SocketAddress& target = config_.plan->targets[c.target];
  io_uring_sqe* sqe = ring_->GetSqe();
  io_uring_prep_connect(sqe, c.slot, target.get(), target.length);
  sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, PackUserData(c.slot, c.generation, Op::kConnect));
}

// Every way out of kConnecting passes here: it frees a ramp place and ends the ramp.
void Worker::LeaveConnecting(Connection& c) {
  c.state = ConnState::kIdle;
  ramp_->Release();
  if (!c.ramped) {
    c.ramped = true;
    if (--ramp_remaining_ == 0) stats_->RampFinished(net::MonotonicNanos() - started_ns_);
  }
}

}  // namespace uringload::core
