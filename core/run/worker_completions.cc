// A worker's connections as state machines: the completion handlers (connect, send, receive,
// close, timeout) that move a connection from state to state, one switch over the operation
// each completion carries, and each operation's error path.
#include <cstring>

#include "core/run/worker.h"
#include "net/base/check.h"

namespace uringload::core {

void Worker::OnCompletion(const net::Completion& completion) {
  URINGLOAD_CHECK(completion.slot < connections_.size(), "slot %u of %zu op %d", completion.slot,
                  connections_.size(), static_cast<int>(completion.op));
  Connection& c = connections_[completion.slot];
  ++completions_handled_;
  switch (completion.op) {  // --http3: the UDP slots' handlers (worker_http3.cc).
    case net::Op::kConnect:
      quic_run_ ? OnQuicConnected(c, completion.res) : OnConnect(c, completion);
      break;
    case net::Op::kSend:
      quic_run_ ? OnQuicSent(c, completion.res) : OnSend(c, completion.res);
      break;
    case net::Op::kRecv:
      quic_run_ ? OnQuicReceive(c, completion) : OnReceive(c, completion);
      break;
    case net::Op::kClose:
      OnClosed(c);
      break;
    default:  // The loop keeps socket, cancel and accept completions to itself.
      URINGLOAD_CHECK(false, "slot %u state %d: op %d reached the client", completion.slot,
                      static_cast<int>(c.state), static_cast<int>(completion.op));
  }
}

void Worker::OnConnect(Connection& c, const net::Completion& completion) {
  int res = completion.res;
  URINGLOAD_CHECK(c.state == ConnState::kConnecting && (c.count > 0 || config_.plan->preconnect),
                  "slot %u state %d count %u", c.slot, static_cast<int>(c.state), c.count);
  if (res < 0) {
    Fail(c, Outcome::kConnectError, -res);  // Leaves kConnecting.
    return;
  }
  LeaveConnecting(c);
  loop_->timers().Cancel(&c.timer);  // The connect timeout; the request's starts at its send.
  c.state = ConnState::kActive;
  stats_->ConnectionOpened();
  if (completion.tls != nullptr) {
    stats_->TlsConnected(*completion.tls);
  } else {
    stats_->Connected(completions_at_ns_ - c.connect_started_ns);
  }
  loop_->Receive(c.slot);
  if (completion.tls != nullptr ? completion.tls->http2
                                : config_.plan->http == HttpVersion::kHttp2) {
    stats_->Http2Connected();
    if (!config_.plan->addresses[c.address].is_unix()) loop_->SetNoDelay(c.slot);
    if (absl::Status s = StartSession(c); !s.ok()) {
      Fail(c, Outcome::kConnectError, ENOMEM);  // nghttp2 fails only when out of memory.
      return;
    }
  }
  if (c.count == 0) {  // --preconnect: open before its first request.
    if (preconnecting_) return;
    if (pacer_.open() && !retired_) {
      List(c);  // Waits for the schedule.
    } else {
      Close(c);  // No request will come for it.
    }
    return;
  }
  Fill(c);
  // Open model, -p above 1: room for requests that fall due before its first answer.
  if (pacer_.open() && c.count < Capacity(c)) List(c);
  Flush(c);
}

// The bytes sent leave the buffer; what waits behind them (the rest of a short send, requests
// queued meanwhile) goes next.
void Worker::OnSend(Connection& c, int res) {
  URINGLOAD_CHECK(
      c.state == ConnState::kActive && c.send_size > 0 && res <= static_cast<int>(c.send_size),
      "slot %u state %d send %u res %d", c.slot, static_cast<int>(c.state), c.send_size, res);
  if (res < 0) {
    if (c.protocol == Protocol::kHttp2) {
      LoseConnection(c, -res);
    } else {
      Fail(c, Outcome::kReset, -res);
    }
    return;
  }
  if (!InWarmup()) stats_->BytesSent(res);
  auto sent = static_cast<uint32_t>(res);
  if (c.protocol == Protocol::kHttp2) {
    OnStreamsSent(c, sent);
    return;
  }
  c.out_size -= sent;
  c.send_size = 0;
  if (c.out.empty()) {
    c.static_out += sent;
  } else {
    std::memmove(c.out.data(), c.out.data() + sent, c.out_size);
  }
  if (c.count > 0) Flush(c);
}

// The loop hands over received bytes (res > 0), the peer's close (0) or an error; running
// out of receive buffers is its business (it re-arms).
void Worker::OnReceive(Connection& c, const net::Completion& completion) {
  URINGLOAD_CHECK(c.state == ConnState::kActive, "slot %u state %d res %d", c.slot,
                  static_cast<int>(c.state), completion.res);
  if (completion.res > 0) {
    if (!InWarmup()) stats_->BytesReceived(completion.res);
    uint32_t before = responses_parsed_;
    OnData(c, completion.data);  // llhttp keeps no pointers into the buffer.
    if (config_.plan->pipeline > 1) {
      CountReceiveYield(c, responses_parsed_ - before, completion.more_to_read);
    }
  } else if (completion.res == 0) {
    OnPeerClosed(c);
  } else if (c.protocol == Protocol::kHttp2) {
    LoseConnection(c, -completion.res);
  } else {
    Fail(c, Outcome::kReset, -completion.res);
  }
}

// Responses arrive in request order; one receive may end several of them.
void Worker::OnData(Connection& c, std::string_view data) {
  if (c.protocol == Protocol::kHttp2) {
    OnStreamData(c, data);
    return;
  }
  while (!data.empty()) {
    if (c.count == 0) {  // Bytes nobody asked for: the connection cannot be trusted.
      Close(c);
      return;
    }
    proto::ResponseParser::Result r = c.parser.Feed(data);
    if (r.state == proto::ResponseParser::State::kNeedMore) return;
    if (r.state == proto::ResponseParser::State::kError) {
      bool too_large = c.parser.error_kind() == proto::MessageFeeder::Error::kHeadersTooLarge;
      Fail(c, Outcome::kParseError,
           static_cast<int>(too_large ? ParseFailure::kHeadersTooLarge : ParseFailure::kMalformed));
      return;
    }
    // A request that said `Connection: close` is the last one on it (RFC 9112 9.6), whatever
    // the server answered; so is one the server answered with `Connection: close`.
    bool keep_alive = config_.plan->keep_alive && c.parser.keep_alive();
    ++responses_parsed_;
    FinishRequest(c, Outcome::kOk, 0);
    data.remove_prefix(r.consumed);
    if (!keep_alive) {
      Requeue(c);
      Close(c);
      return;
    }
  }
  // Answered before our send finished (an early error response): the server may not have
  // read the rest as a request boundary, so the connection is not reused.
  if (c.count == 0 && c.send_size > 0) {
    Close(c);
    return;
  }
  Refill(c);
}

void Worker::OnPeerClosed(Connection& c) {
  if (c.protocol == Protocol::kHttp2) {
    LoseConnection(c, ECONNRESET);
    return;
  }
  if (c.count > 0) {
    proto::ResponseParser::Result r = c.parser.Finish();
    if (r.state == proto::ResponseParser::State::kComplete) {
      FinishRequest(c, Outcome::kOk, 0);  // A body delimited by the close.
      Requeue(c);
    } else if (c.parser.started()) {
      Fail(c, Outcome::kParseError, static_cast<int>(ParseFailure::kTruncated));
      return;
    } else {
      Fail(c, Outcome::kReset, ECONNRESET);  // Closed before any response byte.
      return;
    }
  }
  Close(c);
}

void Worker::OnClosed(Connection& c) {
  URINGLOAD_CHECK(c.state == ConnState::kClosing && c.count == 0, "slot %u state %d count %u",
                  c.slot, static_cast<int>(c.state), c.count);
  c.state = ConnState::kIdle;
  c.head = c.submitted = c.stamped = c.undrained_responses = 0;
  c.out_size = c.send_size = 0;
  if (c.protocol == Protocol::kHttp2) {
    Session(c).Stop();  // Its memory goes back while the slot has no connection.
  } else if (quic_run_ && quic_[c.slot].h3 != nullptr) {
    quic_[c.slot].h3->Stop();
  }
  c.protocol = Protocol::kHttp1;
  if (preconnecting_) return;  // Failed or closed by the peer: StartAll connects it again.
  if (flow_ != nullptr && users_[c.slot].thinking()) {  // It connects again when the think ends.
    ScheduleThink(c);
    return;
  }
  ConnectForNext(c);
}

// An idle connection: it connects for its next request, waits on the list for one (open
// model), or is done.
void Worker::ConnectForNext(Connection& c) {
  PendingRequest request;
  if (NextRequest(c, &request)) {
    request.waited = true;  // Sent once connected.
    AddRequest(c, request);
    RequestConnect(c);
  } else if (MoreFor(c)) {
    List(c);
  } else {
    Retire(c);
  }
}

void Worker::OnTimeout(Connection& c, int64_t now) {
  if (flow_ != nullptr && c.count == 0 && users_[c.slot].thinking()) {
    ResumeUser(c);
    return;
  }
  if (c.state == ConnState::kConnecting) {
    if (quic_run_) {  // QUIC's handshake did not end within --connect-timeout.
      Fail(c, Outcome::kTimeout, kQuicHandshakeTimeout);
    } else {
      Fail(c, Outcome::kConnectError, ETIMEDOUT);
    }
  } else if (c.state == ConnState::kActive && c.count > 0) {
    if (IsStreams(c)) {
      TimeOutStreams(c, now);
    } else {
      Fail(c, Outcome::kTimeout, 0);
    }
  }
}

}  // namespace uringload::core
