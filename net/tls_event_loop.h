// TlsEventLoop: TLS over another EventLoop, behind the same interface, so a worker's handlers
// see plaintext whether or not the connection speaks TLS. OpenSSL never touches a socket: it
// reads the ciphertext this loop received (a memory BIO) and writes the ciphertext this loop
// sends (another one); every byte still moves through the inner loop's io_uring operations and
// provided buffers. A client's kConnect completes after the handshake, a server's kAccept
// too; Close sends close_notify first (CloseWithoutNotify does not: serve's fault); a peer's
// close without close_notify is the cause kTlsNoCloseNotify. Sessions: the last ticket a
// worker got from a server is offered on its next connection to it (unless --no-tls-resume).
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <vector>

#include "net/event_loop.h"
#include "net/tls_context.h"

namespace uringload::net {

// A server a client's slots connect to (EventLoop::SetPeer): its name (SNI unless an address
// literal, and the name the certificate must carry), and whether it speaks TLS at all (a
// plain peer's slots pass through untouched: a flow may go to http:// and https:// origins).
struct TlsPeer {
  std::string host;
  bool tls = true;
};

class TlsEventLoop final : public EventLoop, private CompletionHandler {
 public:
  // `peers`: the client's servers, peer 0 first (the slots' peer until SetPeer); empty for a
  // server.
  TlsEventLoop(std::unique_ptr<EventLoop> inner, std::shared_ptr<TlsContext> context,
               uint32_t slots, std::vector<TlsPeer> peers);
  // One server, `host` (empty for a server).
  TlsEventLoop(std::unique_ptr<EventLoop> inner, std::shared_ptr<TlsContext> context,
               uint32_t slots, std::string host)
      : TlsEventLoop(std::move(inner), std::move(context), slots,
                     std::vector<TlsPeer>{{.host = std::move(host), .tls = true}}) {}
  ~TlsEventLoop() override;
  TlsEventLoop(const TlsEventLoop&) = delete;
  TlsEventLoop& operator=(const TlsEventLoop&) = delete;

  void Connect(uint32_t slot, const SocketAddress& target, const SocketAddress* source) override;
  void SetPeer(uint32_t slot, uint16_t peer) override { slots_[slot].peer = peer; }
  void Send(uint32_t slot, const char* data, uint32_t size) override;
  void Receive(uint32_t slot) override;
  void Accept(uint32_t listener, int fd) override;
  void Close(uint32_t slot) override;
  void CloseWithoutNotify(uint32_t slot) override;
  void SetNoDelay(uint32_t slot) override { inner_->SetNoDelay(slot); }
  bool SendPending(uint32_t slot) const override {
    return slots_[slot].plain ? inner_->SendPending(slot) : slots_[slot].plain_pending > 0;
  }
  TimerWheel& timers() override { return inner_->timers(); }
  int64_t Now() const override { return inner_->Now(); }
  const unsigned* WaitingWorkWord() const override { return inner_->WaitingWorkWord(); }
  absl::Status SubmitAndWait(int64_t timeout_ns, unsigned wait_for) override;
  absl::Status SubmitAndSleep(int64_t sleep_ns) override;
  void Drain(CompletionHandler& handler) override;

  // OpenSSL's new-session callback: keeps the ticket for the next connection.
  static int OnNewSession(SSL* ssl, SSL_SESSION* session);

 private:
  enum class State : uint8_t { kFree, kConnecting, kHandshaking, kOpen, kFailed, kClosing };
  struct Peer {
    std::string host;
    bool host_is_address = false;
    bool tls = true;
    SSL_SESSION* session = nullptr;  // The last ticket it gave (client).
  };
  struct Slot {
    SSL* ssl = nullptr;
    BIO* received = nullptr;  // Ciphertext for OpenSSL to read (owned by ssl).
    BIO* to_send = nullptr;   // Ciphertext OpenSSL wrote (owned by ssl).
    std::string out;          // The ciphertext of the inner send in flight.
    uint32_t out_sent = 0;
    uint32_t plain_pending = 0;  // The outer send's size until its ciphertext is sent.
    uint32_t listener = 0;       // Server: the listener that accepted it.
    int64_t started_ns = 0;
    int64_t tcp_ns = 0;
    State state = State::kFree;
    uint16_t peer = 0;   // Kept across connections (SetPeer).
    bool plain = false;  // Connected to a peer without TLS: everything passes through.
    bool inner_sending = false;
    bool close_when_sent = false;
    bool peer_closed = false;  // close_notify received and reported.
    bool outer_knows = false;  // The worker was told of the connection (server side).
  };

  void OnCompletion(const Completion& completion) override;
  void OnInnerConnect(uint32_t slot, int res);
  void OnInnerAccept(const Completion& completion);
  void OnInnerReceive(uint32_t slot, const Completion& completion);
  void OnInnerSend(uint32_t slot, int res);
  void OnInnerClose(uint32_t slot);
  bool StartSsl(uint32_t slot, bool server);
  void Handshake(uint32_t slot);
  void HandshakeFailed(uint32_t slot, int cause);
  void ReadPlain(uint32_t slot);
  void Flush(uint32_t slot);
  void FreeSsl(Slot& s);
  void Deliver(const Completion& completion);

  std::unique_ptr<EventLoop> inner_;
  std::shared_ptr<TlsContext> context_;
  std::vector<Peer> peers_;
  std::vector<Slot> slots_;
  CompletionHandler* handler_ = nullptr;  // The outer handler during Drain.
  std::vector<Completion> deferred_;      // Errors found outside a Drain, delivered at the next.
  std::vector<char> plain_;               // Records' plaintext, shared by all slots.
};

}  // namespace uringload::net
