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
