#include "core/serve/server_http3_driver.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "net/base/absl_view.h"
#include "net/base/check.h"

namespace uringload::core {

ServerHttp3Driver::ServerHttp3Driver(ServerHost* host, const ServerEnv& env, uint32_t slots)
    : host_(host), env_(env), slots_(slots) {}

ServerHttp3Driver::Slot& ServerHttp3Driver::SlotOf(uint32_t slot) {
  if (!slots_[slot]) {
    slots_[slot] = std::make_unique<Slot>();
    slots_[slot]->driver = this;
    slots_[slot]->slot = slot;
    slots_[slot]->expiry.owner = slot | kServerTransportTimer;
  }
  return *slots_[slot];
}

void ServerHttp3Driver::Listen(std::span<const net::UniqueFd> listeners) {
  listeners_ = static_cast<uint32_t>(listeners.size());
  for (uint32_t slot = static_cast<uint32_t>(slots_.size()); slot-- > listeners_;) {
    free_slots_.push_back(slot);
  }
  for (uint32_t i = 0; i < listeners_; ++i) {
    env_.loop->ListenDatagram(i, listeners[i].get());
    env_.loop->Receive(i);
  }
}

void ServerHttp3Driver::OnTransportTimer(uint32_t slot) {
  ServerConnection& c = host_->Conn(slot);
  if (!c.in_use()) return;
  SlotOf(slot).connection.HandleExpiry(env_.loop->Now());
  Flush(slot, c);
}

void ServerHttp3Driver::OnCompletion(const net::Completion& completion) {
  uint32_t slot = completion.slot;
  URINGLOAD_CHECK(slot < slots_.size(), "slot %u of %zu op %d", slot, slots_.size(),
                  static_cast<int>(completion.op));
  bool listener = slot < listeners_;
  switch (completion.op) {
    case net::Op::kRecv:
      OnDatagrams(slot, completion);
      return;
    case net::Op::kConnect: {
      ServerConnection& c = host_->Conn(slot);
      URINGLOAD_CHECK(c.in_use(), "slot %u connected state %d", slot, static_cast<int>(c.state));
      if (completion.res < 0) {
        host_->Close(slot);
        return;
      }
      SlotOf(slot).connected = true;
      env_.loop->Receive(slot);
      Flush(slot, c);
      return;
    }
    case net::Op::kSend: {
      ServerConnection& c = host_->Conn(slot);
      URINGLOAD_CHECK(c.in_use() && c.send_pending, "slot %u send state %d res %d", slot,
                      static_cast<int>(c.state), completion.res);
      c.send_pending = false;
      buffers_.GiveBack(SlotOf(slot).out);
      if (completion.res < 0) {  // The client's port is closed (ICMP): nobody to answer.
        host_->Close(slot);
        return;
      }
      Flush(slot, c);
      return;
    }
    case net::Op::kClose:  // The slot may hold the next client.
      if (!listener) free_slots_.push_back(slot);
      return;
    default:
      URINGLOAD_CHECK(false, "slot %u: op %d reached the server", slot,
                      static_cast<int>(completion.op));
  }
}

// A receive's datagrams (a run of one size, joined by UDP_GRO) go to their connections; each
// connection they touched answers what is due and sends once they are all in.
void ServerHttp3Driver::OnDatagrams(uint32_t slot, const net::Completion& completion) {
  bool listener = slot < listeners_;
  if (completion.res <= 0) {
    // A listener's receive failed: armed again. A client's socket: the client is gone (ICMP).
    if (listener) {
      if (!completion.more) env_.loop->Receive(slot);
    } else if (host_->Conn(slot).in_use()) {
      host_->Close(slot);
    }
    return;
  }
  env_.stats->BytesReceived(static_cast<uint64_t>(completion.res));
  if (completion.peer == nullptr) return;  // The kernel names every sender; never seen.
  std::string_view peer(reinterpret_cast<const char*>(completion.peer), completion.peer_length);
  uint32_t listener_index = listener ? slot : SlotOf(slot).listener;
  int64_t now = env_.loop->Now();
  int64_t touched = -1;
  auto data =
      std::span(reinterpret_cast<const uint8_t*>(completion.data.data()), completion.data.size());
  for (size_t at = 0; at < data.size(); at += completion.datagram_size) {
    std::span<const uint8_t> datagram =
        data.subspan(at, std::min<size_t>(completion.datagram_size, data.size() - at));
    bool read = false;  // A new connection read its Initial already.
    int64_t target = SlotFor(peer, completion.peer_length, listener_index, datagram, &read);
    if (target < 0) continue;
    if (touched >= 0 && touched != target) Pump(touched, host_->Conn(touched));
    touched = target;
    if (!read) SlotOf(static_cast<uint32_t>(target)).connection.Receive(datagram, now);
  }
  if (touched >= 0) Pump(static_cast<uint32_t>(touched), host_->Conn(touched));
}

int64_t ServerHttp3Driver::SlotFor(std::string_view peer, socklen_t peer_length, uint32_t listener,
                                   std::span<const uint8_t> datagram, bool* read) {
  auto known = slot_of_peer_.find(AbslView(peer));
  *read = known == slot_of_peer_.end();
  if (!*read) return known->second;
  return Accept(peer, peer_length, listener, datagram);
}

int64_t ServerHttp3Driver::Accept(std::string_view peer, socklen_t peer_length, uint32_t listener,
                                  std::span<const uint8_t> initial) {
  if (free_slots_.empty()) {
    host_->TableFull("use --max-connections (one worker serves HTTP/3)");
    return -1;
  }
  uint32_t slot = free_slots_.back();
  ServerConnection& c = host_->Conn(slot);
  URINGLOAD_CHECK(!c.in_use(), "free slot %u state %d", slot, static_cast<int>(c.state));
  Slot& h = SlotOf(slot);
  h.peer = net::SocketAddress{};
  memcpy(&h.peer.storage, peer.data(), std::min(peer.size(), sizeof(h.peer.storage)));
  h.peer.length = peer_length;
  net::QuicPath path;
  const net::SocketAddress& local = env_.plan->listen[listener];
  memcpy(&path.local, &local.storage, sizeof(path.local));
  path.local_length = local.length;
  memcpy(&path.remote, &h.peer.storage, sizeof(path.remote));
  path.remote_length = h.peer.length;
  h.requests = 0;
  h.waiting.clear();  // Before the Initial is read: 0-RTT requests may come with it.
  absl::Status accepted = h.connection.Accept(*env_.plan->quic_tls, path, initial,
                                              net::QuicSettings{}, &h, env_.loop->Now());
  if (!accepted.ok()) return -1;  // No client Initial: a late packet of a closed connection.
  free_slots_.pop_back();
  h.peer_key = std::string(peer);
  h.listener = listener;
  h.connected = false;
  h.handshake_counted = false;
  c.state = ServerConnState::kOpen;
  c.driver = this;
  c.send_pending = false;
  slot_of_peer_[h.peer_key] = slot;
  env_.stats->ConnectionAccepted();
  env_.loop->ConnectDatagram(slot, h.peer, &local);
  return slot;
}

void ServerHttp3Driver::OnRequest(Slot& s, const proto::Http3ServerSession::Request& request) {
  env_.stats->RequestReceived();
  AnswerDraw draw = host_->Draw(env_.loop->Now());
  s.waiting.push_back({.ready_at_ns = draw.ready_at_ns,
                       .stream_id = request.stream_id,
                       .handle = request.handle,
                       .fault = draw.fault});
  if (env_.plan->http2_goaway_after != 0 && ++s.requests == env_.plan->http2_goaway_after) {
    if (!s.connection.session().GoAway().ok()) s.connection.Abort();
  }
}

// Answers every request whose delay has ended, sets the timer for the next one, sends.
void ServerHttp3Driver::Pump(uint32_t slot, ServerConnection& c) {
  if (!c.in_use()) return;
  Slot& s = SlotOf(slot);
  s.connection.session().CutPartialAnswers();
  if (!s.handshake_counted && s.connection.quic().handshake_completed()) {
    s.handshake_counted = true;
    env_.stats->TlsHandshake();
  }
  int64_t next = AnswerDue(s.waiting, env_.loop->Now(), [&](const Response& r) {
    Answer(s, r);
    return s.connection.end() == net::QuicEnd::kOpen;  // The reset faults end it.
  });
  if (next != std::numeric_limits<int64_t>::max()) env_.loop->timers().Schedule(&c.timer, next);
  Flush(slot, c);
}

// One request's answer, or its fault.
void ServerHttp3Driver::Answer(Slot& s, const Response& r) {
  const ServePlan& plan = *env_.plan;
  if (r.fault != Fault::kNone) env_.stats->FaultInjected(r.fault);
  Http3ServerConnection& h3 = s.connection;
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
  int status = r.fault == Fault::kStatus ? plan.faults.status_code : 200;
  bool echo = plan.body_mode == ServePlan::BodyMode::kEcho;
  bool partial = r.fault == Fault::kPartial;  // Half the body, then H3_INTERNAL_ERROR.
  if (!h3.session().Respond(r.stream_id, r.handle, status, plan.body, echo, partial).ok()) {
    h3.Abort();
    return;
  }
  if (!partial) env_.stats->RequestAnswered();
}

// QUIC's timer runs only while no send is in flight: its completion flushes again, and an
// expiry that asks to send (pacing) while one is in flight would fire again and again.
void ServerHttp3Driver::Flush(uint32_t slot, ServerConnection& c) {
  Slot& h = SlotOf(slot);
  if (!h.connected || c.send_pending) {
    env_.loop->timers().Cancel(&h.expiry);
    return;
  }
  Http3ServerConnection::Sent sent =
      h.connection.SendDue(*env_.loop, slot, buffers_, h.out, env_.loop->Now());
  if (sent.bytes > 0) {
    c.send_pending = true;
    env_.stats->BytesSent(sent.bytes);
  }
  if (h.connection.end() != net::QuicEnd::kOpen) {  // It closes once its CONNECTION_CLOSE went.
    env_.loop->timers().Cancel(&h.expiry);
    if (sent.bytes == 0) host_->Close(slot);
    return;
  }
  h.connection.ScheduleExpiry(env_.loop->timers(), &h.expiry);
}

void ServerHttp3Driver::Release(uint32_t slot, ServerConnection& /*c*/) {
  Slot& h = SlotOf(slot);
  slot_of_peer_.erase(h.peer_key);
  h.connection.Stop();
  h.waiting.clear();
  env_.loop->timers().Cancel(&h.expiry);
}

}  // namespace uringload::core
