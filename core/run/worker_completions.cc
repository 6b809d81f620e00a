// A worker's connections as state machines: the completion handlers that move a connection
// from state to state, one switch over the operation each completion carries. An open
// connection's sends and receives are its driver's; the worker handles the TCP connect (its
// TLS handshake is the loop's), the close and the timers.
#include <cstring>

#include "core/run/worker.h"
#include "net/base/check.h"

namespace uringload::core {

void Worker::OnCompletion(const net::Completion& completion) {
  URINGLOAD_CHECK(completion.slot < connections_.size(), "slot %u of %zu op %d", completion.slot,
                  connections_.size(), static_cast<int>(completion.op));
  Connection& c = connections_[completion.slot];
  ++completions_handled_;
  switch (completion.op) {
    case net::Op::kConnect:
      if (c.driver != nullptr) {  // A transport of its own (QUIC).
        c.driver->OnConnected(c, completion);
      } else {
        OnTcpConnect(c, completion);
      }
      break;
    case net::Op::kSend:
      URINGLOAD_CHECK(c.driver != nullptr, "slot %u state %d: a send without a driver", c.slot,
                      static_cast<int>(c.state));
      c.driver->OnSent(c, completion.res);
      break;
    case net::Op::kRecv:
      URINGLOAD_CHECK(c.driver != nullptr, "slot %u state %d: a receive without a driver", c.slot,
                      static_cast<int>(c.state));
      c.driver->OnReceived(c, completion);
      break;
    case net::Op::kClose:
      OnClosed(c);
      break;
    default:  // The loop keeps socket, cancel and accept completions to itself.
      URINGLOAD_CHECK(false, "slot %u state %d: op %d reached the client", completion.slot,
                      static_cast<int>(c.state), static_cast<int>(completion.op));
  }
}

void Worker::OnTcpConnect(Connection& c, const net::Completion& completion) {
  int res = completion.res;
  URINGLOAD_CHECK(c.state == ConnState::kConnecting && (c.count > 0 || config_.plan->preconnect),
                  "slot %u state %d count %u", c.slot, static_cast<int>(c.state), c.count);
  if (res < 0) {
    Fail(c, Outcome::kConnectError, -res);  // Leaves kConnecting.
    return;
  }
  if (completion.tls != nullptr) {
    stats_->TlsConnected(*completion.tls);
  } else {
    stats_->Connected(completions_at_ns_ - c.connect_started_ns);
  }
  loop_->Receive(c.slot);
  ConnectionDriver* driver = drivers_.ForTcp(completion.tls);
  URINGLOAD_CHECK(driver != nullptr, "slot %u: no driver for the protocol it chose", c.slot);
  Opened(c, driver);
}

// The connection speaks `driver`'s protocol now: it takes the requests that waited, then
// fills up with more, or (--preconnect, before its first request) waits for them.
void Worker::Opened(Connection& c, ConnectionDriver* driver) {
  opener_->Leave(c);
  loop_->timers().Cancel(&c.timer);  // The connect timeout; the request's starts at its send.
  c.state = ConnState::kActive;
  stats_->ConnectionOpened();
  c.driver = driver;
  driver->Open(c);
  if (c.state != ConnState::kActive) return;  // It failed to start.
  if (c.count == 0) {                         // --preconnect: open before its first request.
    if (!preconnecting_ && (!pacer_.open() || retired_)) {
      Close(c);  // No request will come for it.
      return;
    }
    if (!preconnecting_) List(c);  // Waits for the schedule.
    driver->Flush(c);              // What the protocol sends first (QUIC: the handshake's end).
    return;
  }
  Fill(c);
  // Open model, -p above 1: room for requests that fall due before its first answer.
  if (pacer_.open() && c.count < driver->Capacity(c)) List(c);
  driver->Flush(c);
}

void Worker::OnClosed(Connection& c) {
  URINGLOAD_CHECK(c.state == ConnState::kClosing && c.count == 0, "slot %u state %d count %u",
                  c.slot, static_cast<int>(c.state), c.count);
  c.state = ConnState::kIdle;
  c.head = c.submitted = c.stamped = c.undrained_responses = 0;
  c.send_size = 0;
  if (c.driver != nullptr) {
    c.driver->Release(c);  // Its memory goes back while the slot has no connection.
    c.driver = nullptr;
  }
  if (preconnecting_) return;  // Failed or closed by the peer: StartAll connects it again.
  // A flow user's first connection holds its think: it connects again when the think ends.
  if (flows_.has_value() && flows_->ThinksOnClose(c)) return;
  ConnectForNext(c);
}

// An idle connection: it connects for its next request, waits on the list for one (open
// model), or is done.
void Worker::ConnectForNext(Connection& c) {
  PendingRequest request;
  if (NextRequest(c, &request)) {
    request.waited = true;  // Sent once connected.
    AddRequest(c, request);
    opener_->Request(c);
  } else if (MoreFor(c)) {
    List(c);
  } else {
    Retire(c);
  }
}

void Worker::OnTimer(net::TimerNode* node, int64_t now) {
  if ((node->owner & kTransportTimer) != 0) {
    Connection& c = connections_[node->owner & ~kTransportTimer];
    if (c.driver != nullptr) c.driver->OnTransportTimer(c, now);
  } else {
    OnTimeout(connections_[node->owner], now);
  }
}

void Worker::OnTimeout(Connection& c, int64_t now) {
  if (flows_.has_value() && flows_->EndThink(c)) return;
  if (c.state == ConnState::kConnecting) {
    if (c.driver != nullptr) {
      c.driver->OnConnectTimeout(c);  // Its own transport's handshake.
    } else {
      Fail(c, Outcome::kConnectError, ETIMEDOUT);
    }
  } else if (c.state == ConnState::kActive && c.count > 0) {
    c.driver->OnTimeout(c, now);
  }
}

}  // namespace uringload::core
