// A worker's HTTP/3 connections: a connected UDP socket per connection on the worker's one
// ring, QUIC and HTTP/3 in memory (Http3Connection), QUIC's timer on the same timer wheel.
// Requests are streams in the same pool of -p entries as HTTP/2's (worker_http2.cc); the
// connection is kConnecting until QUIC's handshake ends, as a TCP one is until its connect
// (and TLS handshake) does. One send in flight per connection, of up to net::kQuicSendPackets
// packets joined by UDP_SEGMENT.
#include <algorithm>
#include <cstring>
#include <limits>

#include "core/run/worker.h"
#include "net/address.h"
#include "net/base/check.h"

namespace uringload::core {
namespace {

// A request the server rejected unprocessed (H3_REQUEST_REJECTED) goes out again once.
constexpr uint8_t kMaxHttp3Retries = 1;

net::QuicPath PathTo(const net::SocketAddress& remote) {
  net::QuicPath path;
  memcpy(&path.remote, &remote.storage, sizeof(path.remote));
  path.remote_length = remote.length;
  // The socket is connected and its local address the kernel's choice: the unspecified
  // address of the same family stands for it (ngtcp2 only compares paths).
  path.local.ss_family = static_cast<sa_family_t>(remote.family());
  path.local_length = remote.length;
  return path;
}

}  // namespace

void Worker::OnTimer(net::TimerNode* node, int64_t now) {
  if ((node->owner & kQuicTimer) != 0) {
    OnQuicExpiry(connections_[node->owner & ~kQuicTimer], now);
  } else {
    OnTimeout(connections_[node->owner], now);
  }
}

void Worker::ConnectQuic(Connection& c) {
  const RunPlan& plan = *config_.plan;
  loop_->ConnectDatagram(c.slot, plan.addresses[c.address],
                         c.source >= 0 ? &plan.sources[c.source] : nullptr);
}

// The UDP socket is connected: QUIC's handshake begins (the connect timeout still runs).
void Worker::OnQuicConnected(Connection& c, int res) {
  URINGLOAD_CHECK(c.state == ConnState::kConnecting, "slot %u state %d", c.slot,
                  static_cast<int>(c.state));
  if (res < 0) {
    Fail(c, Outcome::kConnectError, -res);
    return;
  }
  QuicSlot& q = quic_[c.slot];
  q.socket_ns = completions_at_ns_ - c.connect_started_ns;
  q.ready = false;
  q.ticket_taken = false;
  q.streams_opened = 0;
  q.losses_counted = 0;
  q.handshake_counted = false;
  q.resubmit = false;
  if (q.h3 == nullptr) {
    q.h3 = std::make_unique<Http3Connection>(static_cast<uint32_t>(c.pending.size()));
    q.h3->SetBodyMatcher(config_.plan->checks.body.get());
    if (flow_ != nullptr) q.h3->SetInspector(&users_[c.slot]);
  }
  net::QuicSettings settings;
  settings.handshake_timeout_ns = connect_timeout_ns_;
  std::span<const uint8_t> resume, early_params;
  if (config_.plan->quic_resume) resume = quic_ticket_;
  if (config_.plan->quic_zero_rtt && !resume.empty()) early_params = quic_early_params_;
  session_connection_ = &c;  // With 0-RTT, HTTP/3 is ready at once (OnReady).
  absl::Status s =
      q.h3->Start(*config_.plan->quic_tls, PathTo(config_.plan->addresses[c.address]),
                  config_.plan->url.host, settings, this, completions_at_ns_, resume, early_params);
  session_connection_ = nullptr;
  if (!s.ok()) {  // GnuTLS could not make a session: out of memory.
    Fail(c, Outcome::kConnectError, ENOMEM);
    return;
  }
  loop_->Receive(c.slot);
  if (q.ready) {  // 0-RTT: the requests go with the Initial.
    q.ready = false;
    OpenQuic(c);
    return;
  }
  FlushQuic(c);
}

// Datagrams: each into QUIC, joined runs (UDP_GRO) split at their size.
void Worker::OnQuicReceive(Connection& c, const net::Completion& completion) {
  if (c.state != ConnState::kConnecting && c.state != ConnState::kActive) return;
  if (completion.res < 0) {  // ICMP said no (ECONNREFUSED: nothing listens on the UDP port).
    if (c.state == ConnState::kConnecting) {
      Fail(c, Outcome::kConnectError, -completion.res);
    } else {
      LoseQuic(c, Outcome::kReset, -completion.res);
    }
    return;
  }
  if (completion.res == 0) return;  // An empty datagram: nothing for QUIC.
  // A joined run of datagrams (UDP_GRO): each is a packet. Like bytes, the warmup's are not
  // counted.
  size_t run_size = completion.datagram_size != 0 ? completion.datagram_size : completion.res;
  if (!InWarmup()) {
    stats_->BytesReceived(completion.res);
    stats_->QuicPacketsReceived((completion.res + run_size - 1) / run_size);
  }
  if (!received_ns_.empty()) received_ns_[c.slot] = completions_at_ns_;
  uint16_t open_before = c.count;
  uint32_t responses_before = responses_parsed_;
  std::string_view data = completion.data;
  size_t size = completion.datagram_size != 0 ? completion.datagram_size : data.size();
  Http3Connection& h3 = Http3Of(c);
  session_connection_ = &c;
  bool open = true;
  while (!data.empty() && open) {
    size_t n = std::min(size, data.size());
    open =
        h3.Receive(std::span(reinterpret_cast<const uint8_t*>(data.data()), n), completions_at_ns_);
    data.remove_prefix(n);
  }
  session_connection_ = nullptr;
  CountQuicLosses(c);
  if (!open) {
    EndQuic(c);
    return;
  }
  AfterQuicInput(c, open_before, responses_before);
}

void Worker::OnQuicSent(Connection& c, int res) {
  c.send_size = 0;
  quic_buffers_.GiveBack(quic_[c.slot].out);
  if (c.state != ConnState::kConnecting && c.state != ConnState::kActive) return;
  if (res < 0) {
    if (c.state == ConnState::kConnecting) {
      Fail(c, Outcome::kConnectError, -res);
    } else {
      LoseQuic(c, Outcome::kReset, -res);
    }
    return;
  }
  if (!InWarmup()) stats_->BytesSent(static_cast<uint64_t>(res));
  FlushQuic(c);
}

void Worker::OnQuicExpiry(Connection& c, int64_t now) {
  if (c.state != ConnState::kConnecting && c.state != ConnState::kActive) return;
  uint16_t open_before = c.count;
  uint32_t responses_before = responses_parsed_;
  session_connection_ = &c;
  bool open = Http3Of(c).HandleExpiry(now);
  session_connection_ = nullptr;
  CountQuicLosses(c);
  if (!open) {
    EndQuic(c);
    return;
  }
  AfterQuicInput(c, open_before, responses_before);
}

void Worker::AfterQuicInput(Connection& c, uint16_t open_before, uint32_t responses_before) {
  QuicSlot& q = quic_[c.slot];
  // The server's ticket comes after the handshake: kept once per connection (a copy per
  // connection, not per request), for the next connects to resume.
  if (config_.plan->quic_resume && !q.ticket_taken && q.h3->quic().handshake_completed()) {
    q.ticket_taken = q.h3->TakeSessionTicket(&quic_ticket_);
    if (q.ticket_taken && config_.plan->quic_zero_rtt) q.h3->TakeEarlyParams(&quic_early_params_);
  }
  if (!q.handshake_counted && c.state == ConnState::kActive && q.h3->quic().handshake_completed()) {
    CountQuicHandshake(c);
  }
  if (q.resubmit) {
    q.resubmit = false;
    ResubmitQuic(c);
  }
  if (q.ready) {
    q.ready = false;
    OpenQuic(c);
    return;
  }
  if (c.state != ConnState::kActive || c.protocol != Protocol::kHttp3) {
    FlushQuic(c);  // The handshake's packets.
    return;
  }
  if (c.count != open_before) ScheduleStreamTimeout(c);
  if (responses_parsed_ != responses_before && !config_.plan->keep_alive && c.count == 0) {
    Close(c);
    return;
  }
  RefillStreams(c);  // Flushes.
}

// QUIC's handshake ended and HTTP/3's streams are open: the connection is open, and the
// requests that waited for it become its first streams.
void Worker::OnReady() { quic_[session_connection_->slot].ready = true; }

void Worker::OnEarlyDataRejected() { quic_[session_connection_->slot].resubmit = true; }

void Worker::CountQuicHandshake(Connection& c) {
  QuicSlot& q = quic_[c.slot];
  q.handshake_counted = true;
  const net::QuicConnection& quic = q.h3->quic();
  net::TlsHandshake handshake{
      .tcp_ns = q.socket_ns,
      .handshake_ns = completions_at_ns_ - c.connect_started_ns - q.socket_ns,
      .resumed = quic.tls_resumed(),
      .version = quic.tls_version(),
      .cipher = quic.tls_cipher()};
  stats_->TlsConnected(handshake);
  if (quic.early_data_attempted()) stats_->QuicZeroRtt(quic.early_data_accepted());
}

void Worker::ResubmitQuic(Connection& c) {
  Http3Connection& h3 = Http3Of(c);
  for (uint32_t k = 0; k < c.pending.size(); ++k) {
    const PendingRequest& r = c.pending[k];
    if (!r.in_use) continue;
    const proto::RequestTemplate& tmpl = TemplateFor(c, r);
    if (!h3.can_open() || h3.streams_left() == 0 ||
        !h3.Submit(tmpl, ContextFor(c, r, tmpl), k).ok()) {
      RetryStream(c, k);  // The server's real limits are lower than its ticket's: elsewhere.
    } else {
      stats_->RequestRetried();  // Its 0-RTT send was refused: this is a second send.
    }
  }
}

void Worker::OpenQuic(Connection& c) {
  LeaveConnecting(c);
  loop_->timers().Cancel(&c.timer);
  c.state = ConnState::kActive;
  stats_->ConnectionOpened();
  if (Http3Of(c).quic().handshake_completed()) CountQuicHandshake(c);
  stats_->Http3Connected();
  if (received_ns_.empty()) received_ns_.resize(connections_.size());
  c.protocol = Protocol::kHttp3;
  uint16_t waiting = c.count;
  c.count = c.submitted = c.stamped = 0;
  c.head = 0;
  c.out_size = 0;
  c.static_out = nullptr;
  for (uint16_t k = 0; k < waiting; ++k) {
    PendingRequest r = c.pending[k];
    AddStream(c, r);
  }
  if (c.count == 0) {  // --preconnect: open before its first request.
    if (preconnecting_) {
      FlushQuic(c);
      return;
    }
    if (pacer_.open() && !retired_) {
      List(c);
      FlushQuic(c);
    } else {
      Close(c);
    }
    return;
  }
  RefillStreams(c);
}

// Writes what QUIC has to send now into the slot's buffer and sends it, unless a send is in
// flight (its completion writes the rest). During a drain it waits for the drain's end, so
// the datagrams of one drain are answered by one write.
void Worker::FlushQuic(Connection& c) {
  if (in_drain_) {
    if (!c.flush_queued) {
      c.flush_queued = true;
      queued_flushes_.push_back(c.slot);
    }
    return;
  }
  QuicSlot& q = quic_[c.slot];
  // A flush queued by an earlier connection of the slot, or a send in flight.
  if (c.send_size != 0 || q.h3 == nullptr || !q.h3->started()) return;
  session_connection_ = &c;
  bool sent = SendQuicPackets(c);
  session_connection_ = nullptr;
  if (q.h3->end() != net::QuicEnd::kOpen) {  // Its CONNECTION_CLOSE went, if any: it ends.
    EndQuic(c);
    return;
  }
  ScheduleQuicExpiry(c);
  if (!sent) return;
  if (c.state != ConnState::kActive || c.submitted == 0) return;
  // The streams opened since the last send go out with this one: the next submit stamps them.
  for (PendingRequest& r : c.pending) {
    if (r.in_use && r.sent_ns == 0) r.sent_ns = -1;
  }
  c.submitted = 0;
  if (c.stamped == 0) {
    c.stamped = 1;
    unstamped_sends_.push_back(c.slot);
  }
}

void Worker::CountQuicLosses(Connection& c) {
  QuicSlot& q = quic_[c.slot];
  uint64_t lost = q.h3->quic().packets_lost();
  if (lost == q.losses_counted) return;
  if (!InWarmup()) stats_->QuicPacketsLost(lost - q.losses_counted);
  q.losses_counted = lost;
}

void Worker::ScheduleQuicExpiry(Connection& c) {
  QuicSlot& q = quic_[c.slot];
  int64_t expiry = q.h3->expiry_ns();
  if (expiry == std::numeric_limits<int64_t>::max()) {
    loop_->timers().Cancel(&q.expiry);
  } else {
    loop_->timers().Schedule(&q.expiry, expiry);
  }
}

// How the connection ended decides its requests' outcome: before the handshake ended, a
// timeout or a connect_error; after, an idle timeout is a timeout, the server's
// CONNECTION_CLOSE a reset with its code, its stateless reset a reset of its own cause, HTTP/3
// broken a parse_error.
void Worker::EndQuic(Connection& c) {
  if (c.state != ConnState::kConnecting && c.state != ConnState::kActive) return;
  const Http3Connection& h3 = Http3Of(c);
  const net::QuicConnection& quic = h3.quic();
  bool handshake_done = c.state == ConnState::kActive && quic.handshake_completed();
  switch (h3.end()) {
    case net::QuicEnd::kIdleTimeout:
      LoseQuic(c, Outcome::kTimeout, handshake_done ? kQuicIdleTimeout : kQuicHandshakeTimeout);
      return;
    case net::QuicEnd::kClosedByPeer:
      LoseQuic(c, handshake_done ? Outcome::kReset : Outcome::kConnectError,
               QuicCloseCause(quic.peer_error_code(), quic.peer_error_is_application(),
                              !net::IsAddressLiteral(config_.plan->url.host)));
      return;
    case net::QuicEnd::kStatelessReset:
      LoseQuic(c, handshake_done ? Outcome::kReset : Outcome::kConnectError, kQuicStatelessReset);
      return;
    case net::QuicEnd::kError:
    case net::QuicEnd::kOpen:
      if (!handshake_done) {
        LoseQuic(c, Outcome::kConnectError, kQuicHandshakeFailed);
      } else if (h3.http3_failed()) {
        LoseQuic(c, Outcome::kParseError, static_cast<int>(ParseFailure::kHttp3Protocol));
      } else {
        LoseQuic(c, Outcome::kReset, kQuicError);
      }
      return;
  }
}

// Every request on the connection ends with `outcome` and `cause`, but those that never went
// out: they are sent again on another connection (once). Then it closes.
void Worker::LoseQuic(Connection& c, Outcome outcome, int cause) {
  if (c.protocol != Protocol::kHttp3) {  // Still connecting: the requests wait in a ring.
    Fail(c, outcome, cause);
    return;
  }
  for (uint32_t k = 0; k < c.pending.size() && c.count > 0; ++k) {
    if (!c.pending[k].in_use) continue;
    if (c.pending[k].sent_ns == 0 && c.pending[k].retries < kMaxHttp3Retries) {
      RetryStream(c, k);
    } else {
      FinishStream(c, k, outcome, cause, 0);
    }
  }
  Close(c);
}

// Closing: a connection that is still open says so to the server (CONNECTION_CLOSE with
// H3_NO_ERROR), when no send holds the buffer; QUIC's timer stops.
void Worker::CloseQuic(Connection& c) {
  QuicSlot& q = quic_[c.slot];
  loop_->timers().Cancel(&q.expiry);
  if (q.h3 == nullptr || !q.h3->started() || q.h3->end() != net::QuicEnd::kOpen) return;
  q.h3->CloseGracefully();
  if (c.send_size != 0) return;
  SendQuicPackets(c);  // Its CONNECTION_CLOSE.
}

// The packets QUIC has due, written and copied into a free send buffer of their size, then
// sent as one run (the caller checked no send is in flight); false when there were none.
bool Worker::SendQuicPackets(Connection& c) {
  QuicSlot& q = quic_[c.slot];
  uint32_t datagram_size = 0;
  size_t n = q.h3->Write(quic_buffers_.scratch(), completions_at_ns_, &datagram_size);
  if (n == 0) return false;
  quic_buffers_.Hold(n, q.out);
  if (!InWarmup()) stats_->QuicPacketsSent((n + datagram_size - 1) / datagram_size);
  c.send_size = static_cast<uint32_t>(n);
  loop_->SendDatagrams(c.slot, q.out.data(), c.send_size, datagram_size);
  return true;
}

void Worker::OnStreamEnd(const proto::Http3StreamEnd& end) {
  Connection& c = *session_connection_;
  if (end.complete) {
    ++responses_parsed_;
    FinishStream(c, end.tag, Outcome::kOk, 0, end.status, end.body_found);
  } else if (end.malformed) {
    FinishStream(c, end.tag, Outcome::kParseError, static_cast<int>(ParseFailure::kHttp3Malformed),
                 0);
  } else if (end.error_code == kHttp3RequestRejected &&
             c.pending[end.tag].retries < kMaxHttp3Retries) {
    RetryStream(c, end.tag);
  } else if (end.error_code != 0 && end.error_code != proto::kH3NoError) {
    FinishStream(c, end.tag, Outcome::kReset, Http3ResetCause(end.error_code), 0);
  } else {
    FinishStream(c, end.tag, Outcome::kParseError, static_cast<int>(ParseFailure::kHttp3Incomplete),
                 0);
  }
}

}  // namespace uringload::core
