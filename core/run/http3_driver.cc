#include "core/run/http3_driver.h"

#include <algorithm>
#include <cstring>

#include "net/address.h"
#include "net/base/check.h"

namespace uringload::core {
namespace {

// A request the server rejected unprocessed (H3_REQUEST_REJECTED) goes out again once.
constexpr StreamRules kHttp3Rules{.malformed = ParseFailure::kHttp3Malformed,
                                  .incomplete = ParseFailure::kHttp3Incomplete,
                                  .max_retries = 1,
                                  .reset_cause = Http3ResetCause};

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

Http3Driver::Http3Driver(DriverHost* host, const DriverEnv& env)
    : StreamDriver(host, env, kHttp3Rules),
      slots_(env.connections),
      resumption_(std::max<size_t>(1, env.plan->origins.size())) {
  for (uint32_t i = 0; i < env.connections; ++i) {
    slots_[i].driver = this;
    slots_[i].expiry.owner = i | kTransportTimer;
  }
}

void Http3Driver::Connect(Connection& c) {
  const RunPlan& plan = *env_.plan;
  env_.loop->ConnectDatagram(c.slot, plan.AddressOf(c.origin, c.address),
                             c.source >= 0 ? &plan.sources[c.source] : nullptr);
}

// The UDP socket is connected: QUIC's handshake begins (the connect timeout still runs).
void Http3Driver::OnConnected(Connection& c, const net::Completion& completion) {
  URINGLOAD_CHECK(c.state == ConnState::kConnecting, "slot %u state %d", c.slot,
                  static_cast<int>(c.state));
  if (completion.res < 0) {
    host_->Fail(c, Outcome::kConnectError, -completion.res);
    return;
  }
  const RunPlan& plan = *env_.plan;
  Slot& q = slots_[c.slot];
  q.connection = &c;
  q.socket_ns = *env_.now - c.connect_started_ns;
  q.ready = false;
  q.ticket_taken = false;
  q.streams_opened = 0;
  q.losses_counted = 0;
  q.handshake_counted = false;
  q.resubmit = false;
  if (q.h3 == nullptr) {
    q.h3 = std::make_unique<Http3Connection>(static_cast<uint32_t>(c.pending.size()));
    q.h3->SetBodyMatcher(plan.checks.body.get());
    q.h3->SetStreamBodies(env_.streams != nullptr);
    if (FlowUser* user = env_.UserOf(c.slot)) q.h3->SetInspector(user);
  }
  net::QuicSettings settings;
  settings.handshake_timeout_ns = env_.connect_timeout_ns;
  std::span<const uint8_t> resume, early_params;
  Resumption& kept = resumption_[c.origin];
  if (plan.quic_resume) resume = kept.ticket;
  if (plan.quic_zero_rtt && !resume.empty()) early_params = kept.early_params;
  // With 0-RTT, HTTP/3 is ready at once (OnReady).
  absl::Status s =
      q.h3->Start(*plan.quic_tls, PathTo(plan.AddressOf(c.origin, c.address)),
                  plan.UrlOf(c.origin).host, settings, &q, *env_.now, resume, early_params);
  if (!s.ok()) {  // GnuTLS could not make a session: out of memory.
    host_->Fail(c, Outcome::kConnectError, ENOMEM);
    return;
  }
  env_.loop->Receive(c.slot);
  if (q.ready) {  // 0-RTT: the requests go with the Initial.
    q.ready = false;
    host_->Opened(c, this);
    return;
  }
  Flush(c);
}

// QUIC's handshake did not end within --connect-timeout.
void Http3Driver::OnConnectTimeout(Connection& c) {
  host_->Fail(c, Outcome::kTimeout, kQuicHandshakeTimeout);
}

// QUIC's handshake ended and HTTP/3's streams are open: the requests that waited for it become
// its first streams.
void Http3Driver::Open(Connection& c) {
  if (Http3Of(c).quic().handshake_completed()) CountHandshake(c);
  env_.stats->Http3Connected();
  TakeWaiting(c);
}

// Streams the connection may have open now: -p, capped by QUIC's stream credit; with
// --no-keepalive one stream per connection.
uint32_t Http3Driver::Capacity(const Connection& c) const {
  const Slot& q = slots_[c.slot];
  if (!env_.plan->keep_alive) return q.streams_opened == 0 ? 1 : 0;
  uint64_t more = q.h3->streams_left();
  return static_cast<uint32_t>(std::min<uint64_t>(c.pending.size(), c.count + more));
}

// A connection out of stream credit waits for the server's MAX_STREAMS; none opens after a
// GOAWAY, nor after its one stream with --no-keepalive.
bool Http3Driver::MayOpen(const Connection& c) const {
  const Slot& q = slots_[c.slot];
  if (!env_.plan->keep_alive) return q.streams_opened == 0;
  return q.h3->ready() && !q.h3->going_away();
}

void Http3Driver::Submit(Connection& c, uint32_t k) {
  const PendingRequest& r = c.pending[k];
  const proto::RequestTemplate& tmpl = env_.TemplateFor(c, r);
  absl::Status s = Http3Of(c).Submit(tmpl, host_->ContextFor(c, r, tmpl), k);
  ++slots_[c.slot].streams_opened;
  // QUIC refuses a stream the server does not allow, which Capacity() rules out.
  URINGLOAD_CHECK(s.ok(), "slot %u: %s", c.slot, std::string(s.message()).c_str());
}

// Datagrams: each into QUIC, joined runs (UDP_GRO) split at their size.
void Http3Driver::OnReceived(Connection& c, const net::Completion& completion) {
  if (c.state != ConnState::kConnecting && c.state != ConnState::kActive) return;
  if (completion.res < 0) {  // ICMP said no (ECONNREFUSED: nothing listens on the UDP port).
    Lose(c, c.state == ConnState::kConnecting ? Outcome::kConnectError : Outcome::kReset,
         -completion.res);
    return;
  }
  if (completion.res == 0) return;  // An empty datagram: nothing for QUIC.
  // A joined run of datagrams (UDP_GRO): each is a packet. Like bytes, the warmup's are not
  // counted.
  size_t size = completion.datagram_size != 0 ? completion.datagram_size : completion.res;
  if (!env_.InWarmup()) {
    env_.stats->BytesReceived(completion.res);
    env_.stats->QuicPacketsReceived((completion.res + size - 1) / size);
  }
  received_ns_[c.slot] = *env_.now;
  uint16_t open_before = c.count;
  uint32_t responses_before = responses_parsed_;
  std::string_view data = completion.data;
  Http3Connection& h3 = Http3Of(c);
  bool open = true;
  while (!data.empty() && open) {
    size_t n = std::min(size, data.size());
    open = h3.Receive(std::span(reinterpret_cast<const uint8_t*>(data.data()), n), *env_.now);
    data.remove_prefix(n);
  }
  CountLosses(c);
  if (!open) {
    End(c);
    return;
  }
  AfterQuicInput(c, open_before, responses_before);
}

void Http3Driver::OnSent(Connection& c, int res) {
  c.send_size = 0;
  buffers_.GiveBack(slots_[c.slot].out);
  if (c.state != ConnState::kConnecting && c.state != ConnState::kActive) return;
  if (res < 0) {
    Lose(c, c.state == ConnState::kConnecting ? Outcome::kConnectError : Outcome::kReset, -res);
    return;
  }
  if (!env_.InWarmup()) env_.stats->BytesSent(static_cast<uint64_t>(res));
  Flush(c);
}

void Http3Driver::OnTransportTimer(Connection& c, int64_t now) {
  if (c.state != ConnState::kConnecting && c.state != ConnState::kActive) return;
  uint16_t open_before = c.count;
  uint32_t responses_before = responses_parsed_;
  bool open = Http3Of(c).HandleExpiry(now);
  CountLosses(c);
  if (!open) {
    End(c);
    return;
  }
  AfterQuicInput(c, open_before, responses_before);
}

void Http3Driver::AfterQuicInput(Connection& c, uint16_t open_before, uint32_t responses_before) {
  Slot& q = slots_[c.slot];
  const RunPlan& plan = *env_.plan;
  // The server's ticket comes after the handshake: kept once per connection (a copy per
  // connection, not per request), for the next connects to resume.
  if (plan.quic_resume && !q.ticket_taken && q.h3->quic().handshake_completed()) {
    Resumption& kept = resumption_[q.connection->origin];
    q.ticket_taken = q.h3->TakeSessionTicket(&kept.ticket);
    if (q.ticket_taken && plan.quic_zero_rtt) q.h3->TakeEarlyParams(&kept.early_params);
  }
  if (!q.handshake_counted && c.state == ConnState::kActive && q.h3->quic().handshake_completed()) {
    CountHandshake(c);
  }
  if (q.resubmit) {
    q.resubmit = false;
    Resubmit(c);
  }
  if (q.ready) {
    q.ready = false;
    host_->Opened(c, this);
    return;
  }
  if (c.state != ConnState::kActive) {
    Flush(c);  // The handshake's packets.
    return;
  }
  AfterInput(c, open_before, responses_before);  // Flushes.
}

void Http3Driver::CountHandshake(Connection& c) {
  Slot& q = slots_[c.slot];
  q.handshake_counted = true;
  const net::QuicConnection& quic = q.h3->quic();
  net::TlsHandshake handshake{.tcp_ns = q.socket_ns,
                              .handshake_ns = *env_.now - c.connect_started_ns - q.socket_ns,
                              .resumed = quic.tls_resumed(),
                              .version = quic.tls_version(),
                              .cipher = quic.tls_cipher()};
  env_.stats->TlsConnected(handshake);
  if (quic.early_data_attempted()) env_.stats->QuicZeroRtt(quic.early_data_accepted());
}

void Http3Driver::Resubmit(Connection& c) {
  Http3Connection& h3 = Http3Of(c);
  for (uint32_t k = 0; k < c.pending.size(); ++k) {
    const PendingRequest& r = c.pending[k];
    if (!r.in_use) continue;
    const proto::RequestTemplate& tmpl = env_.TemplateFor(c, r);
    if (!h3.can_open() || h3.streams_left() == 0 ||
        !h3.Submit(tmpl, host_->ContextFor(c, r, tmpl), k).ok()) {
      RetryStream(c, k);  // The server's real limits are lower than its ticket's: elsewhere.
    } else {
      env_.stats->RequestRetried();  // Its 0-RTT send was refused: this is a second send.
    }
  }
}

// Writes what QUIC has to send now into a send buffer and sends it, unless a send is in
// flight (its completion writes the rest). During a drain it waits for the drain's end, so
// the datagrams of one drain are answered by one write.
void Http3Driver::Flush(Connection& c) {
  if (host_->DeferFlush(c)) return;
  Slot& q = slots_[c.slot];
  // A flush queued by an earlier connection of the slot, or a send in flight.
  if (c.send_size != 0 || q.h3 == nullptr || !q.h3->started()) return;
  bool sent = SendPackets(c);
  if (q.h3->end() != net::QuicEnd::kOpen) {  // Its CONNECTION_CLOSE went, if any: it ends.
    End(c);
    return;
  }
  ScheduleExpiry(c);
  if (sent && c.state == ConnState::kActive) MarkSent(c);
}

void Http3Driver::CountLosses(Connection& c) {
  Slot& q = slots_[c.slot];
  uint64_t lost = q.h3->quic().packets_lost();
  if (lost == q.losses_counted) return;
  if (!env_.InWarmup()) env_.stats->QuicPacketsLost(lost - q.losses_counted);
  q.losses_counted = lost;
}

void Http3Driver::ScheduleExpiry(Connection& c) {
  Slot& q = slots_[c.slot];
  q.h3->ScheduleExpiry(env_.loop->timers(), &q.expiry);
}

// How the connection ended decides its requests' outcome: before the handshake ended, a
// timeout or a connect_error; after, an idle timeout is a timeout, the server's
// CONNECTION_CLOSE a reset with its code, its stateless reset a reset of its own cause, HTTP/3
// broken a parse_error.
void Http3Driver::End(Connection& c) {
  if (c.state != ConnState::kConnecting && c.state != ConnState::kActive) return;
  const Http3Connection& h3 = Http3Of(c);
  const net::QuicConnection& quic = h3.quic();
  bool handshake_done = c.state == ConnState::kActive && quic.handshake_completed();
  switch (h3.end()) {
    case net::QuicEnd::kIdleTimeout:
      Lose(c, Outcome::kTimeout, handshake_done ? kQuicIdleTimeout : kQuicHandshakeTimeout);
      return;
    case net::QuicEnd::kClosedByPeer:
      Lose(c, handshake_done ? Outcome::kReset : Outcome::kConnectError,
           QuicCloseCause(quic.peer_error_code(), quic.peer_error_is_application(),
                          !net::IsAddressLiteral(env_.plan->UrlOf(c.origin).host)));
      return;
    case net::QuicEnd::kStatelessReset:
      Lose(c, handshake_done ? Outcome::kReset : Outcome::kConnectError, kQuicStatelessReset);
      return;
    case net::QuicEnd::kError:
    case net::QuicEnd::kOpen:
      if (!handshake_done) {
        Lose(c, Outcome::kConnectError, kQuicHandshakeFailed);
      } else if (h3.http3_failed()) {
        Lose(c, Outcome::kParseError, static_cast<int>(ParseFailure::kHttp3Protocol));
      } else {
        Lose(c, Outcome::kReset, kQuicError);
      }
      return;
  }
}

// Every request on the connection ends with `outcome` and `cause`, but those that never went
// out: they are sent again on another connection (once). Then it closes.
void Http3Driver::Lose(Connection& c, Outcome outcome, int cause) {
  if (c.state != ConnState::kActive) {  // Still connecting: the requests wait in the ring.
    host_->Fail(c, outcome, cause);
    return;
  }
  for (uint32_t k = 0; k < c.pending.size() && c.count > 0; ++k) {
    if (!c.pending[k].in_use) continue;
    if (c.pending[k].sent_ns == 0 && c.pending[k].retries < kHttp3Rules.max_retries) {
      RetryStream(c, k);
    } else {
      FinishStream(c, k, outcome, cause);
    }
  }
  host_->Close(c);
}

// Closing: a connection that is still open says so to the server (CONNECTION_CLOSE with
// H3_NO_ERROR), when no send holds the buffer; QUIC's timer stops.
void Http3Driver::OnClose(Connection& c) {
  Slot& q = slots_[c.slot];
  env_.loop->timers().Cancel(&q.expiry);
  if (q.h3 == nullptr || !q.h3->started() || q.h3->end() != net::QuicEnd::kOpen) return;
  q.h3->CloseGracefully();
  if (c.send_size != 0) return;
  SendPackets(c);  // Its CONNECTION_CLOSE.
}

void Http3Driver::Release(Connection& c) {
  if (slots_[c.slot].h3 != nullptr) slots_[c.slot].h3->Stop();
}

// What QUIC has due, sent as one run; false when nothing was.
bool Http3Driver::SendPackets(Connection& c) {
  Slot& q = slots_[c.slot];
  Http3Connection::Sent sent = q.h3->SendDue(*env_.loop, c.slot, buffers_, q.out, *env_.now);
  if (sent.bytes == 0) return false;
  if (!env_.InWarmup()) env_.stats->QuicPacketsSent(sent.packets);
  c.send_size = static_cast<uint32_t>(sent.bytes);
  return true;
}

}  // namespace uringload::core
