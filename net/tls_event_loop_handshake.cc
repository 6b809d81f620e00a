// TlsEventLoop's handshakes (net/tls_event_loop.h): an SSL made per connection, with its
// peer's name (SNI, verification) and that peer's last session to resume; the handshake run
// over the inner loop's bytes, and its end reported as the outer kConnect (or kAccept), or as
// the failure's cause.
#include <openssl/err.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <string_view>

#include "net/address.h"
#include "net/base/check.h"
#include "net/tls_errors.h"
#include "net/tls_event_loop.h"

namespace uringload::net {

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

}  // namespace uringload::net
