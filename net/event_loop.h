// EventLoop: what a worker does with its io_uring, client and server alike, as typed
// operations on connection slots, and the completions it gets back. The one implementation
// over a real ring is RingEventLoop; tests drive worker logic through a scripted fake
// (FakeEventLoop, beside the tests) without sockets or sleeps.
//
// A slot is a direct descriptor and the incarnation of a connection in it. The loop keeps per
// slot which operations are pending, so Close(slot) cancels exactly those; every completion
// of an earlier incarnation is dropped inside the loop (its buffer returned), so a handler
// only ever sees completions of the slot's current connection.
//
// The transport seam: a handler sends and receives plaintext. TlsEventLoop wraps a loop and
// keeps this interface, so the workers do not know whether a connection speaks TLS (as wrk's
// five-function `sock` table does).
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "net/address.h"
#include "net/base/check.h"
#include "net/timer_wheel.h"
#include "net/user_data.h"

namespace uringload::net {

// How a TLS connection was set up (TlsEventLoop's kConnect and kAccept completions).
struct TlsHandshake {
  int64_t tcp_ns = 0;        // Connect call (or accept) to the TCP connection.
  int64_t handshake_ns = 0;  // TCP connection to the end of the TLS handshake.
  bool resumed = false;      // A session was resumed (no full handshake).
  const char* version = "";  // "TLSv1.3" (static strings of OpenSSL's).
  const char* cipher = "";
  bool http2 = false;  // ALPN agreed on h2.
};

// UDP_SEGMENT's limits (Linux): 64 datagrams a send (UDP_MAX_SEGMENTS), and what one IPv4 UDP
// datagram can carry.
inline constexpr uint32_t kMaxDatagramsPerSend = 64;
inline constexpr uint32_t kMaxDatagramSendBytes = 65507;

// One completion of a current operation.
struct Completion {
  uint32_t slot = 0;  // The connection slot; for kAccept, the listener's index.
  Op op = Op::kClose;
  // kConnect: 0 or -errno (a failed socket creation reports its own errno). kSend: bytes
  // sent or -errno. kRecv: bytes (> 0, in `data`), 0 when the peer closed, or -errno (never
  // -ENOBUFS: an exhausted buffer ring is the loop's business, it re-arms). kAccept: the new
  // connection's slot or -errno. kClose: the slot is free for a new connection.
  int res = 0;
  // The multishot operation stays armed (IORING_CQE_F_MORE): kAccept, and kRecv on the
  // real ring (whose loop re-arms a receive that ended, so handlers need not look).
  bool more = false;
  // kRecv: the socket held more bytes after this receive (IORING_CQE_F_SOCK_NONEMPTY); false
  // when it was drained, or when the loop cannot tell (TLS).
  bool more_to_read = false;
  std::string_view data;              // kRecv: valid only during the handler call.
  const TlsHandshake* tls = nullptr;  // kConnect/kAccept over TLS: valid during the call.
  // kRecv on a UDP slot: `data` holds datagrams of this many bytes each, the last one
  // possibly shorter (UDP_GRO joined a run of them); 0 on a TCP slot. A single datagram is
  // its own length.
  uint32_t datagram_size = 0;
  // kRecv on a UDP slot: who sent the datagrams (valid during the handler call), or null.
  const sockaddr* peer = nullptr;
  socklen_t peer_length = 0;
};

inline Completion MakeCompletion(uint32_t slot, Op op, int res, bool more = false,
                                 std::string_view data = {}) {
  Completion c;
  c.slot = slot;
  c.op = op;
  c.res = res;
  c.more = more;
  c.data = data;
  return c;
}

class CompletionHandler {
 public:
  virtual ~CompletionHandler() = default;
  virtual void OnCompletion(const Completion& completion) = 0;
};

class EventLoop {
 public:
  virtual ~EventLoop() = default;

  // Opens a TCP connection in `slot` to `target`, from `source` when given (else the kernel
  // chooses). Completes with kConnect. Both addresses must stay valid until the next submit.
  virtual void Connect(uint32_t slot, const SocketAddress& target, const SocketAddress* source) = 0;
  // The next Connect of `slot` goes to peer `peer` of the loop's (a TLS loop's server name and
  // whether that peer speaks TLS at all); loops that know one peer ignore it.
  virtual void SetPeer(uint32_t /*slot*/, uint16_t /*peer*/) {}
  // Sends all `size` bytes (they must stay valid until kSend completes).
  virtual void Send(uint32_t slot, const char* data, uint32_t size) = 0;
  // Arms a multishot receive into the loop's buffer ring; re-armed by the loop whenever the
  // kernel ends it without an error (buffers exhausted, CQ overflow) while the slot is open.
  virtual void Receive(uint32_t slot) = 0;
  // Multishot accept on listening socket `fd` into free slots; completions name `listener`.
  virtual void Accept(uint32_t listener, int fd) = 0;
  // Cancels whatever is pending on `slot` and closes it; completes with kClose.
  virtual void Close(uint32_t slot) = 0;
  // The same without TLS's close_notify (a fault `serve` injects); plain TCP: Close.
  virtual void CloseWithoutNotify(uint32_t slot) { Close(slot); }
  // A connected UDP socket in `slot` to `target` (QUIC), from `source` when given, receiving
  // joined runs of datagrams where the kernel has UDP_GRO. Completes with kConnect; then
  // Receive arms a multishot receive of datagrams and SendDatagrams sends. Only a loop built
  // for datagrams has them (RingEventLoopOptions::datagram_buffers).
  virtual void ConnectDatagram(uint32_t slot, const SocketAddress& /*target*/,
                               const SocketAddress* /*source*/) {
    URINGLOAD_CHECK(false, "slot %u: this event loop carries no datagrams", slot);
  }
  // Puts the bound, unconnected UDP socket `fd` (a QUIC server's listener) in `slot`; then
  // Receive arms a multishot receive whose completions name each sender (Completion::peer).
  // The caller keeps `fd` open until the slot is closed. Only a loop built for datagrams.
  virtual void ListenDatagram(uint32_t slot, int /*fd*/) {
    URINGLOAD_CHECK(false, "slot %u: this event loop carries no datagrams", slot);
  }
  // Sends `size` bytes on a UDP slot as datagrams of `datagram_size` bytes each, the last one
  // possibly shorter: one sendmsg, which the kernel splits (UDP_SEGMENT). At most
  // kMaxDatagramsPerSend datagrams and kMaxDatagramSendBytes bytes. Completes with kSend:
  // the bytes sent or -errno. The bytes must stay valid until then.
  virtual void SendDatagrams(uint32_t slot, const char* /*data*/, uint32_t /*size*/,
                             uint32_t /*datagram_size*/) {
    URINGLOAD_CHECK(false, "slot %u: this event loop carries no datagrams", slot);
  }
  // TCP_NODELAY on the open connection in `slot`, where the kernel can set it from the ring
  // (Linux 6.7); no completion. HTTP/2 needs it: its small WINDOW_UPDATE frames would wait
  // behind Nagle's algorithm for a delayed ACK.
  virtual void SetNoDelay(uint32_t /*slot*/) {}

  virtual bool SendPending(uint32_t slot) const = 0;
  virtual TimerWheel& timers() = 0;
  // The monotonic clock the loop's timers run on, in nanoseconds.
  virtual int64_t Now() const = 0;

  // Submits what is queued and waits until `wait_for` completions are ready or `timeout_ns`
  // passed. An error is a ring failure (never a timeout or an interrupted wait).
  virtual absl::Status SubmitAndWait(int64_t timeout_ns, unsigned wait_for) = 0;
  // Submits what is queued, sleeps `sleep_ns` while completions gather (no receive runs
  // meanwhile), then takes once what is ready: for peers that trickle, where a wait for more
  // completions than come would keep receiving while the data keeps arriving.
  virtual absl::Status SubmitAndSleep(int64_t sleep_ns) = 0;
  // Hands every ready completion to `handler`, then returns the receive buffers and re-arms
  // the receives that ended without an error.
  virtual void Drain(CompletionHandler& handler) = 0;
  // The word Ring::WorkWaiting tests from another thread, mapped while the loop lives: set
  // while completions wait for this loop's thread to take them. None: the loop keeps no such
  // flag (a simulation, or a ring not asked for it).
  virtual const unsigned* WaitingWorkWord() const { return nullptr; }
};

}  // namespace uringload::net
