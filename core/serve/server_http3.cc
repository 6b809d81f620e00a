// serve's HTTP/3 connections (--http3): the same worker, ring and timer wheel. The listeners
// are UDP sockets whose receives name the sender. A new client's Initial makes a connection
// in a free slot, with a UDP socket of its own bound to the listener's port and connected to
// the client, which the kernel then gives that client's datagrams; a datagram that still
// reaches a listener, or another client's socket in the moment before its connect, is found
// its connection by the sender's address. Requests get their delay and fault on arrival and
// are answered when the delay ends, as over HTTP/2. One send in flight per connection.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/serve/server_worker.h"
#include "net/base/absl_view.h"
#include "net/base/check.h"

namespace uringload::core {
void ServerWorker::StartHttp3Listeners() {
  uint32_t listeners = static_cast<uint32_t>(listeners_.size());
  for (uint32_t slot = static_cast<uint32_t>(connections_.size()); slot-- > listeners;) {
    free_http3_slots_.push_back(slot);
  }
  for (uint32_t i = 0; i < listeners; ++i) {
    loop_->ListenDatagram(i, listeners_[i].get());
    loop_->Receive(i);
  }
}

void ServerWorker::OnTimer(uint32_t owner) {
  if ((owner & kQuicTimer) == 0) {
    Pump(owner);
    return;
  }
  uint32_t slot = owner & ~kQuicTimer;
  ServerConnection& c = Conn(slot);
  if (!c.in_use() || !c.http3) return;
  session_slot_ = slot;
  c.h3->connection.HandleExpiry(loop_->Now());
  FlushHttp3(slot, c);
}

void ServerWorker::OnHttp3Completion(const net::Completion& completion) {
  uint32_t slot = completion.slot;
  URINGLOAD_CHECK(slot < connections_.size(), "slot %u of %zu op %d", slot, connections_.size(),
                  static_cast<int>(completion.op));
  bool listener = slot < listeners_.size();
  switch (completion.op) {
    case net::Op::kRecv:
      OnDatagrams(slot, completion);
      return;
    case net::Op::kConnect: {
      ServerConnection& c = Conn(slot);
      URINGLOAD_CHECK(c.in_use() && c.http3, "slot %u connected state %d", slot,
                      static_cast<int>(c.state));
      if (completion.res < 0) {
        CloseHttp3(slot, c);
        return;
      }
      c.h3->connected = true;
      loop_->Receive(slot);
      FlushHttp3(slot, c);
      return;
    }
    case net::Op::kSend: {
      ServerConnection& c = Conn(slot);
      URINGLOAD_CHECK(c.in_use() && c.http3 && c.send_pending, "slot %u send state %d res %d", slot,
                      static_cast<int>(c.state), completion.res);
      c.send_pending = false;
      quic_buffers_.GiveBack(c.h3->out);
      if (completion.res < 0) {  // The client's port is closed (ICMP): nobody to answer.
        CloseHttp3(slot, c);
        return;
      }
      FlushHttp3(slot, c);
      return;
    }
    case net::Op::kClose:  // The slot may hold the next client.
      if (!listener) free_http3_slots_.push_back(slot);
      return;
    default:
      URINGLOAD_CHECK(false, "slot %u: op %d reached the server", slot,
                      static_cast<int>(completion.op));
  }
}

// A receive's datagrams (a run of one size, joined by UDP_GRO) go to their connections; each
// connection they touched answers what is due and sends once they are all in.
void ServerWorker::OnDatagrams(uint32_t slot, const net::Completion& completion) {
  bool listener = slot < listeners_.size();
  if (completion.res <= 0) {
    // A listener's receive failed: armed again. A client's socket: the client is gone (ICMP).
    if (listener) {
      if (!completion.more) loop_->Receive(slot);
    } else if (Conn(slot).in_use()) {
      CloseHttp3(slot, Conn(slot));
    }
    return;
  }
  stats_->BytesReceived(static_cast<uint64_t>(completion.res));
  if (completion.peer == nullptr) return;  // The kernel names every sender; never seen.
  std::string_view peer(reinterpret_cast<const char*>(completion.peer), completion.peer_length);
  uint32_t listener_index = listener ? slot : Conn(slot).h3->listener;
  int64_t now = loop_->Now();
  int64_t touched = -1;
  auto data =
      std::span(reinterpret_cast<const uint8_t*>(completion.data.data()), completion.data.size());
  for (size_t at = 0; at < data.size(); at += completion.datagram_size) {
    std::span<const uint8_t> datagram =
        data.subspan(at, std::min<size_t>(completion.datagram_size, data.size() - at));
    bool read = false;  // A new connection read its Initial already.
    int64_t target = Http3SlotFor(peer, completion.peer_length, listener_index, datagram, &read);
    if (target < 0) continue;
    if (touched >= 0 && touched != target) PumpHttp3(touched, Conn(touched));
    touched = target;
    ServerConnection& c = Conn(static_cast<uint32_t>(target));
    session_slot_ = static_cast<uint32_t>(target);
    if (!read) c.h3->connection.Receive(datagram, now);
  }
  if (touched >= 0) PumpHttp3(static_cast<uint32_t>(touched), Conn(touched));
}

int64_t ServerWorker::Http3SlotFor(std::string_view peer, socklen_t peer_length, uint32_t listener,
                                   std::span<const uint8_t> datagram, bool* read) {
  auto known = http3_slots_.find(AbslView(peer));
  *read = known == http3_slots_.end();
  if (!*read) return known->second;
  return AcceptHttp3(peer, peer_length, listener, datagram);
}

int64_t ServerWorker::AcceptHttp3(std::string_view peer, socklen_t peer_length, uint32_t listener,
                                  std::span<const uint8_t> initial) {
  if (free_http3_slots_.empty()) {
    stats_->TableFull();
    if (!warned_table_full_) {
      warned_table_full_ = true;
      std::fprintf(stderr,
                   "uringload serve: the descriptor table is full (%u connections); further "
                   "HTTP/3 clients are dropped: use --max-connections\n",
                   plan_->table_size);
    }
    return -1;
  }
  uint32_t slot = free_http3_slots_.back();
  ServerConnection& c = Conn(slot);
  URINGLOAD_CHECK(!c.in_use(), "free slot %u state %d", slot, static_cast<int>(c.state));
  if (!c.h3) c.h3 = std::make_unique<ServerHttp3>();
  ServerHttp3& h = *c.h3;
  h.peer = net::SocketAddress{};
  memcpy(&h.peer.storage, peer.data(), std::min(peer.size(), sizeof(h.peer.storage)));
  h.peer.length = peer_length;
  net::QuicPath path;
  const net::SocketAddress& local = plan_->listen[listener];
  memcpy(&path.local, &local.storage, sizeof(path.local));
  path.local_length = local.length;
  memcpy(&path.remote, &h.peer.storage, sizeof(path.remote));
  path.remote_length = h.peer.length;
  h.requests = 0;
  h.waiting.clear();  // Before the Initial is read: 0-RTT requests may come with it.
  session_slot_ = slot;
  absl::Status accepted =
      h.connection.Accept(*plan_->quic_tls, path, initial, net::QuicSettings{}, this, loop_->Now());
  if (!accepted.ok()) return -1;  // No client Initial: a late packet of a closed connection.
  free_http3_slots_.pop_back();
  h.peer_key = std::string(peer);
  h.listener = listener;
  h.connected = false;
  h.handshake_counted = false;
  h.expiry.owner = slot | kQuicTimer;
  c.state = ServerConnState::kOpen;
  c.http3 = true;
  c.send_pending = false;
  http3_slots_[h.peer_key] = slot;
  stats_->ConnectionAccepted();
  loop_->ConnectDatagram(slot, h.peer, &local);
  return slot;
}

void ServerWorker::OnRequest(const proto::Http3ServerSession::Request& request) {
  ServerConnection& c = Conn(session_slot_);
  ServerHttp3& h = *c.h3;
  stats_->RequestReceived();
  h.waiting.push_back({.ready_at_ns = service_.Admit(loop_->Now(), plan_->delay.SampleNanos(rng_)),
                       .stream_id = request.stream_id,
                       .handle = request.handle,
                       .fault = plan_->faults.Draw(rng_)});
  if (plan_->http2_goaway_after != 0 && ++h.requests == plan_->http2_goaway_after) {
    if (!h.connection.session().GoAway().ok()) h.connection.Abort();
  }
}

// Answers every request whose delay has ended, sets the timer for the next one, sends.
void ServerWorker::PumpHttp3(uint32_t slot, ServerConnection& c) {
  if (!c.in_use() || !c.http3) return;
  c.h3->connection.session().CutPartialAnswers();
  if (!c.h3->handshake_counted && c.h3->connection.quic().handshake_completed()) {
    c.h3->handshake_counted = true;
    stats_->TlsHandshake();
  }
  int64_t next = AnswerDue(c.h3->waiting, loop_->Now(), [&](const Http3Response& r) {
    AnswerHttp3(c, r);
    return c.h3->connection.end() == net::QuicEnd::kOpen;  // The reset faults end it.
  });
  if (next != std::numeric_limits<int64_t>::max()) loop_->timers().Schedule(&c.timer, next);
  FlushHttp3(slot, c);
}

// One request's answer, or its fault.
void ServerWorker::AnswerHttp3(ServerConnection& c, const Http3Response& r) {
  if (r.fault != Fault::kNone) stats_->FaultInjected(r.fault);
  Http3ServerConnection& h3 = c.h3->connection;
  switch (r.fault) {
    case Fault::kReset:  // The connection ends: CONNECTION_CLOSE with H3_INTERNAL_ERROR.
      h3.Abort();
      return;
    case Fault::kNoCloseNotify:  // No CONNECTION_CLOSE: a stateless reset, as if lost.
      h3.Forget();
      return;
    case Fault::kStall:  // The stream stays open, never answered; the others go on.
      return;
    case Fault::kRstStream:
      h3.session().Reset(r.stream_id, r.handle, proto::kH3InternalError);
      return;
    case Fault::kMalformed:  // A :status that is no number: the client's stream error.
      if (!h3.session().RespondMalformed(r.stream_id, r.handle).ok()) h3.Abort();
      return;
    default:
      break;
  }
  int status = r.fault == Fault::kStatus ? plan_->faults.status_code : 200;
  bool echo = plan_->body_mode == ServePlan::BodyMode::kEcho;
  bool partial = r.fault == Fault::kPartial;  // Half the body, then H3_INTERNAL_ERROR.
  if (!h3.session().Respond(r.stream_id, r.handle, status, plan_->body, echo, partial).ok()) {
    h3.Abort();
    return;
  }
  if (!partial) stats_->RequestAnswered();
}

// QUIC's timer runs only while no send is in flight: its completion flushes again, and an
// expiry that asks to send (pacing) while one is in flight would fire again and again.
void ServerWorker::FlushHttp3(uint32_t slot, ServerConnection& c) {
  ServerHttp3& h = *c.h3;
  if (!h.connected || c.send_pending) {
    loop_->timers().Cancel(&h.expiry);
    return;
  }
  uint32_t datagram_size = 0;
  size_t n = h.connection.Write(quic_buffers_.scratch(), loop_->Now(), &datagram_size);
  if (n > 0) {
    c.send_pending = true;
    stats_->BytesSent(n);
    quic_buffers_.Hold(n, h.out);
    loop_->SendDatagrams(slot, h.out.data(), static_cast<uint32_t>(n), datagram_size);
  }
  if (h.connection.end() != net::QuicEnd::kOpen) {  // It closes once its CONNECTION_CLOSE went.
    loop_->timers().Cancel(&h.expiry);
    if (n == 0) CloseHttp3(slot, c);
    return;
  }
  int64_t expiry = h.connection.expiry_ns();
  if (expiry == std::numeric_limits<int64_t>::max()) {
    loop_->timers().Cancel(&h.expiry);
  } else {
    loop_->timers().Schedule(&h.expiry, expiry);
  }
}

void ServerWorker::CloseHttp3(uint32_t slot, ServerConnection& c) {
  if (!c.in_use()) return;
  ServerHttp3& h = *c.h3;
  http3_slots_.erase(h.peer_key);
  h.connection.Stop();
  h.waiting.clear();
  loop_->timers().Cancel(&c.timer);
  loop_->timers().Cancel(&h.expiry);
  c.state = ServerConnState::kFree;
  c.http3 = false;
  c.send_pending = false;
  stats_->ConnectionClosed();
  loop_->Close(slot);
}

}  // namespace uringload::core
