#include "net/tls_event_loop.h"

#include <openssl/err.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

#include "net/address.h"
#include "net/base/check.h"
#include "net/tls_errors.h"

// OpenSSL's error queue stays empty between calls: SSL_get_error reads it, so every failure
// clears it once handled. Clearing before every call instead cost 2.5% of the HTTPS client's
// CPU (perf, keep-alive at c=100: ERR_clear_error looks up thread-local state each time).

namespace uringload::net {
namespace {

// A TLS record carries at most 16 KiB of plaintext; the plaintext buffer holds four.
constexpr size_t kRecordPlaintext = 16 * 1024;
constexpr size_t kPlaintextBuffer = 4 * kRecordPlaintext;

}  // namespace

TlsEventLoop::TlsEventLoop(std::unique_ptr<EventLoop> inner, std::shared_ptr<TlsContext> context,
                           uint32_t slots, std::vector<TlsPeer> peers)
    : inner_(std::move(inner)),
      context_(std::move(context)),
      slots_(slots),
      plain_(kPlaintextBuffer) {
  for (TlsPeer& p : peers) {
    bool address = IsAddressLiteral(p.host);
    peers_.push_back({.host = std::move(p.host), .host_is_address = address, .tls = p.tls});
  }
  if (peers_.empty()) peers_.emplace_back();  // A server's.
}

TlsEventLoop::~TlsEventLoop() {
  for (Slot& s : slots_) FreeSsl(s);
  for (Peer& p : peers_) {
    if (p.session != nullptr) SSL_SESSION_free(p.session);
  }
}

namespace {

// Where an SSL keeps its slot's peer, for the new-session callback.
int PeerIndex() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

}  // namespace

int TlsEventLoop::OnNewSession(SSL* ssl, SSL_SESSION* session) {
  auto* self = static_cast<TlsEventLoop*>(SSL_get_app_data(ssl));
  if (self == nullptr || !self->context_->resume()) return 0;
  auto peer = reinterpret_cast<uintptr_t>(SSL_get_ex_data(ssl, PeerIndex()));
  SSL_SESSION*& kept = self->peers_[peer].session;
  if (kept != nullptr) SSL_SESSION_free(kept);
  kept = session;
  return 1;  // We keep the reference.
}

void TlsEventLoop::FreeSsl(Slot& s) {
  if (s.ssl != nullptr) SSL_free(s.ssl);  // Frees both BIOs too.
  s.ssl = nullptr;
  s.received = s.to_send = nullptr;
}

bool TlsEventLoop::StartSsl(uint32_t slot, bool server) {
  Slot& s = slots_[slot];
  FreeSsl(s);
  s.ssl = SSL_new(context_->get());
  s.received = BIO_new(BIO_s_mem());
  s.to_send = BIO_new(BIO_s_mem());
  if (s.ssl == nullptr || s.received == nullptr || s.to_send == nullptr) {
    ERR_clear_error();
    if (s.ssl == nullptr) {
      BIO_free(s.received);
      BIO_free(s.to_send);
      s.received = s.to_send = nullptr;
    }
    return false;
  }
  // An empty BIO means "wait for more", not end of file.
  BIO_set_mem_eof_return(s.received, -1);
  SSL_set_bio(s.ssl, s.received, s.to_send);
  SSL_set_app_data(s.ssl, this);
  if (server) {
    SSL_set_accept_state(s.ssl);
    return true;
  }
  SSL_set_connect_state(s.ssl);
  const Peer& peer = peers_[s.peer];
  SSL_set_ex_data(s.ssl, PeerIndex(), reinterpret_cast<void*>(uintptr_t{s.peer}));
  if (!peer.host_is_address) SSL_set_tlsext_host_name(s.ssl, peer.host.c_str());
  if (SSL_get_verify_mode(s.ssl) != SSL_VERIFY_NONE) {
    if (peer.host_is_address) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s.ssl), peer.host.c_str());
    } else {
      SSL_set1_host(s.ssl, peer.host.c_str());
    }
  }
  // Each connection resumes from its own copy: a TLS 1.3 handshake writes into the session it
  // resumed (its secrets), so connections sharing one object spoiled each other's resumption
  // (measured: c=5 resumed 396-470 of 500 handshakes with a shared session, c=1 499).
  if (peer.session != nullptr && context_->resume()) {
    SSL_SESSION* copy = SSL_SESSION_dup(peer.session);
    if (copy != nullptr) {
      SSL_set_session(s.ssl, copy);
      SSL_SESSION_free(copy);  // The SSL holds its own reference.
    }
  }
  return true;
}

void TlsEventLoop::Connect(uint32_t slot, const SocketAddress& target,
                           const SocketAddress* source) {
  Slot& s = slots_[slot];
  FreeSsl(s);
  s = Slot{.out = std::move(s.out), .peer = s.peer};  // Keeps the buffer's capacity.
  s.plain = !peers_[s.peer].tls;
  s.state = State::kConnecting;
  s.started_ns = inner_->Now();
  s.outer_knows = true;
  inner_->Connect(slot, target, source);
}

void TlsEventLoop::Send(uint32_t slot, const char* data, uint32_t size) {
  Slot& s = slots_[slot];
  if (s.plain) {
    inner_->Send(slot, data, size);
    return;
  }
  URINGLOAD_CHECK(s.state == State::kOpen && s.plain_pending == 0, "slot %u state %d pending %u",
                  slot, static_cast<int>(s.state), s.plain_pending);
  int written = SSL_write(s.ssl, data, static_cast<int>(size));
  if (written != static_cast<int>(size)) {
    ERR_clear_error();
    deferred_.push_back(MakeCompletion(slot, Op::kSend, -kTlsRecordError));
    return;
  }
  s.plain_pending = size;
  Flush(slot);
}

// The inner receive is armed when the TCP connection is up (the handshake needs it).
void TlsEventLoop::Receive(uint32_t slot) {
  if (slots_[slot].plain) inner_->Receive(slot);
}

void TlsEventLoop::Accept(uint32_t listener, int fd) { inner_->Accept(listener, fd); }

void TlsEventLoop::Close(uint32_t slot) {
  Slot& s = slots_[slot];
  if (s.plain) {
    CloseWithoutNotify(slot);
    return;
  }
  // Even after the peer's close_notify: each side sends its own before closing (RFC 8446 6.1).
  if (s.state == State::kOpen) {
    if (SSL_shutdown(s.ssl) < 0) ERR_clear_error();  // Queues close_notify; sent, then closed.
    s.state = State::kClosing;
    s.close_when_sent = true;
    Flush(slot);
    return;
  }
  CloseWithoutNotify(slot);
}

void TlsEventLoop::CloseWithoutNotify(uint32_t slot) {
  Slot& s = slots_[slot];
  s.state = State::kClosing;
  s.close_when_sent = false;
  inner_->Close(slot);
}

// Moves what OpenSSL wrote to the inner loop, one send at a time; a slot closing gracefully
// closes when the last byte (its close_notify) is sent.
void TlsEventLoop::Flush(uint32_t slot) {
  Slot& s = slots_[slot];
  if (s.inner_sending || s.ssl == nullptr) return;
  if (s.state == State::kClosing && !s.close_when_sent) return;  // Closed abruptly.
  size_t pending = BIO_ctrl_pending(s.to_send);
  if (pending == 0) {
    if (s.state == State::kClosing && s.close_when_sent) {
      s.close_when_sent = false;
      inner_->Close(slot);
    }
    return;
  }
  s.out.resize(pending);
  BIO_read(s.to_send, s.out.data(), static_cast<int>(pending));
  s.out_sent = 0;
  s.inner_sending = true;
  inner_->Send(slot, s.out.data(), static_cast<uint32_t>(pending));
}

absl::Status TlsEventLoop::SubmitAndWait(int64_t timeout_ns, unsigned wait_for) {
  if (!deferred_.empty()) timeout_ns = 0;
  return inner_->SubmitAndWait(timeout_ns, wait_for);
}

absl::Status TlsEventLoop::SubmitAndSleep(int64_t sleep_ns) {
  return inner_->SubmitAndSleep(deferred_.empty() ? sleep_ns : 0);
}

void TlsEventLoop::Drain(CompletionHandler& handler) {
  handler_ = &handler;
  std::vector<Completion> deferred;
  deferred.swap(deferred_);
  for (const Completion& c : deferred) Deliver(c);
  inner_->Drain(*this);
  handler_ = nullptr;
}

void TlsEventLoop::Deliver(const Completion& completion) { handler_->OnCompletion(completion); }

void TlsEventLoop::OnCompletion(const Completion& completion) {
  uint32_t slot = completion.slot;
  if (completion.op != Op::kAccept && slot < slots_.size() && slots_[slot].plain) {
    if (completion.op == Op::kClose)
      OnInnerClose(slot);
    else
      Deliver(completion);
    return;
  }
  switch (completion.op) {
    case Op::kConnect:
      OnInnerConnect(slot, completion.res);
      break;
    case Op::kAccept:
      OnInnerAccept(completion);
      break;
    case Op::kRecv:
      OnInnerReceive(slot, completion);
      break;
    case Op::kSend:
      OnInnerSend(slot, completion.res);
      break;
    case Op::kClose:
      OnInnerClose(slot);
      break;
    default:
      Deliver(completion);
  }
}

void TlsEventLoop::OnInnerConnect(uint32_t slot, int res) {
  Slot& s = slots_[slot];
  URINGLOAD_CHECK(s.state == State::kConnecting, "slot %u state %d res %d", slot,
                  static_cast<int>(s.state), res);
  if (res < 0) {
    s.state = State::kFailed;
    Deliver(MakeCompletion(slot, Op::kConnect, res));
    return;
  }
  s.tcp_ns = inner_->Now() - s.started_ns;
  if (!StartSsl(slot, /*server=*/false)) {
    HandshakeFailed(slot, ENOMEM);
    return;
  }
  s.state = State::kHandshaking;
  s.started_ns = inner_->Now();
  inner_->Receive(slot);
  Handshake(slot);
}

void TlsEventLoop::OnInnerAccept(const Completion& completion) {
  if (completion.res < 0) {
    Deliver(completion);
    return;
  }
  auto slot = static_cast<uint32_t>(completion.res);
  Slot& s = slots_[slot];
  FreeSsl(s);
  s = Slot{.out = std::move(s.out)};
  s.listener = completion.slot;
  s.started_ns = inner_->Now();
  if (!StartSsl(slot, /*server=*/true)) {
    s.state = State::kClosing;
    inner_->Close(slot);
    return;
  }
  s.state = State::kHandshaking;
  inner_->Receive(slot);
}

void TlsEventLoop::Handshake(uint32_t slot) {
  Slot& s = slots_[slot];
  int r = SSL_do_handshake(s.ssl);
  if (r != 1) {
    Flush(slot);
    int error = SSL_get_error(s.ssl, r);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) return;
    // A server that speaks none of the protocols offered by ALPN answers with an alert.
    bool no_protocol =
        ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL;
    ERR_clear_error();
    long verify = SSL_get_verify_result(s.ssl);
    if (verify != X509_V_OK) {
      HandshakeFailed(
          slot, kTlsVerifyBase + static_cast<int>(std::min<long>(verify, kTlsVerifyCodes - 1)));
    } else {
      HandshakeFailed(
          slot, no_protocol && context_->requires_http2() ? kTlsNoHttp2 : kTlsHandshakeFailed);
    }
    return;
  }
  const unsigned char* alpn = nullptr;
  unsigned alpn_size = 0;
  SSL_get0_alpn_selected(s.ssl, &alpn, &alpn_size);
  bool http2 = std::string_view(reinterpret_cast<const char*>(alpn), alpn_size) == "h2";
  if (context_->requires_http2() && !http2) {
    HandshakeFailed(slot, kTlsNoHttp2);
    return;
  }
  s.state = State::kOpen;
  TlsHandshake info{.tcp_ns = s.tcp_ns,
                    .handshake_ns = inner_->Now() - s.started_ns,
                    .resumed = SSL_session_reused(s.ssl) == 1,
                    .version = SSL_get_version(s.ssl),
                    .cipher = SSL_get_cipher_name(s.ssl),
                    .http2 = http2};
  Completion done = context_->server()
                        ? MakeCompletion(s.listener, Op::kAccept, static_cast<int>(slot), true)
                        : MakeCompletion(slot, Op::kConnect, 0);
  done.tls = &info;
  s.outer_knows = true;
  // The handshake's last flight waits for what the worker sends at once (its request): one
  // segment. Sent apart, the request sat behind Nagle's algorithm until the peer's delayed
  // ACK: 44 ms per resumed connection with --no-keepalive against nginx, instead of ~1 ms.
  Deliver(done);
  if (s.state != State::kOpen) return;
  Flush(slot);
  // Application data may have come with the handshake's last flight (read ahead into the
  // SSL's own buffer, or still in the BIO).
  if (SSL_has_pending(s.ssl) == 1 || BIO_ctrl_pending(s.received) > 0) ReadPlain(slot);
}

void TlsEventLoop::HandshakeFailed(uint32_t slot, int cause) {
  Slot& s = slots_[slot];
  s.state = State::kFailed;
  if (context_->server()) {  // Nobody to tell: the worker never saw this connection.
    CloseWithoutNotify(slot);
    return;
  }
  Deliver(MakeCompletion(slot, Op::kConnect, -cause));
}

void TlsEventLoop::OnInnerReceive(uint32_t slot, const Completion& completion) {
  Slot& s = slots_[slot];
  if (s.state != State::kHandshaking && s.state != State::kOpen) return;
  if (completion.res > 0) {
    BIO_write(s.received, completion.data.data(), static_cast<int>(completion.data.size()));
    if (s.state == State::kHandshaking) {
      Handshake(slot);
    } else {
      ReadPlain(slot);
    }
    return;
  }
  int error = completion.res == 0 ? ECONNRESET : -completion.res;
  if (s.state == State::kHandshaking) {
    HandshakeFailed(slot, error);
  } else if (!s.peer_closed) {
    // A TCP close without close_notify: the response could have been cut by an attacker.
    Deliver(MakeCompletion(slot, Op::kRecv, completion.res == 0 ? -kTlsNoCloseNotify : -error));
  }
}

// Decrypts what arrived and hands the plaintext over, the records of one receive together as
// far as the buffer holds them: a burst of small records (over HTTP/2, often a response each)
// is then one delivery, not one per record.
void TlsEventLoop::ReadPlain(uint32_t slot) {
  Slot& s = slots_[slot];
  size_t held = 0;  // Plaintext in plain_ not yet handed over.
  auto hand_over = [&] {
    if (held == 0) return;
    Deliver(MakeCompletion(slot, Op::kRecv, static_cast<int>(held), true,
                           std::string_view(plain_.data(), held)));
    held = 0;
  };
  while (s.state == State::kOpen) {
    if (plain_.size() - held < kRecordPlaintext) {
      hand_over();
      continue;  // The handler may have closed the slot.
    }
    int n = SSL_read(s.ssl, plain_.data() + held, static_cast<int>(plain_.size() - held));
    if (n > 0) {
      held += static_cast<size_t>(n);
      continue;
    }
    // Before the handler runs: it may send, and so change the SSL's last error.
    int error = SSL_get_error(s.ssl, n);
    if (held > 0) {
      hand_over();
      if (s.state != State::kOpen) return;
    }
    if (error == SSL_ERROR_WANT_READ) break;
    if (error == SSL_ERROR_ZERO_RETURN) {  // close_notify: a clean end of the stream.
      s.peer_closed = true;
      Deliver(MakeCompletion(slot, Op::kRecv, 0));
      return;
    }
    ERR_clear_error();
    Deliver(MakeCompletion(slot, Op::kRecv, -kTlsRecordError));
    return;
  }
  if (s.state == State::kOpen) Flush(slot);  // A read may have to answer (a key update).
}

void TlsEventLoop::OnInnerSend(uint32_t slot, int res) {
  Slot& s = slots_[slot];
  s.inner_sending = false;
  if (res >= 0) {
    s.out_sent += static_cast<uint32_t>(res);
    if (s.out_sent < s.out.size()) {  // A short send: the rest goes next.
      s.inner_sending = true;
      inner_->Send(slot, s.out.data() + s.out_sent,
                   static_cast<uint32_t>(s.out.size() - s.out_sent));
      return;
    }
  }
  switch (s.state) {
    case State::kClosing:  // Sending close_notify (an abrupt close never gets here).
      if (res < 0) {
        s.close_when_sent = false;
        inner_->Close(slot);
      } else {
        Flush(slot);  // What is left, then the close.
      }
      return;
    case State::kHandshaking:
      if (res < 0) {
        HandshakeFailed(slot, -res);
      } else {
        Flush(slot);
      }
      return;
    case State::kOpen:
      if (res < 0) {
        if (s.plain_pending == 0) return;  // The receive side will tell.
        s.plain_pending = 0;
        Deliver(MakeCompletion(slot, Op::kSend, res));
        return;
      }
      Flush(slot);
      if (!s.inner_sending && s.plain_pending > 0) {
        int sent = static_cast<int>(s.plain_pending);
        s.plain_pending = 0;
        Deliver(MakeCompletion(slot, Op::kSend, sent));
      }
      return;
    default:  // Failed: the close is on its way.
      return;
  }
}

void TlsEventLoop::OnInnerClose(uint32_t slot) {
  Slot& s = slots_[slot];
  bool tell = s.outer_knows;
  FreeSsl(s);
  s.state = State::kFree;
  s.plain = false;
  s.inner_sending = false;
  s.plain_pending = 0;
  s.outer_knows = false;
  if (tell) Deliver(MakeCompletion(slot, Op::kClose, 0));
}

}  // namespace uringload::net
