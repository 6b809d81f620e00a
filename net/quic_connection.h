// QuicConnection: one QUIC connection (RFC 9000) over ngtcp2 and GnuTLS, in memory: the
// datagrams a UDP slot received go in, the packets to send come out in runs one GSO send
// carries, and its one timer is an expiry the caller keeps on its timer wheel. ngtcp2 never
// touches a socket, a thread or a clock here, so the event loop stays the worker's one loop.
// Stream data to send comes from a StreamSource the caller implements (HTTP/3's nghttp3
// keeps the bytes until they are acknowledged); what arrives goes to Events.
// With quic_tls.cc, the only place that sees ngtcp2 (quic_connection*.cc: packets, events, TLS
// session).
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "net/quic_tls.h"

struct ngtcp2_conn;

namespace uringload::net {

// The largest QUIC packet either side writes: what a 1500-byte Ethernet MTU carries in UDP
// over IPv6 (RFC 9000 14 asks at least 1200).
inline constexpr size_t kQuicMaxPacket = 1452;
// What one send of a connection carries at most (UDP_SEGMENT): 8 packets, 11.6 KB
// (QuicSendBuffers keeps such buffers for the sends in flight).
inline constexpr uint32_t kQuicSendPackets = 8;
inline constexpr size_t kQuicSendBytes = kQuicSendPackets * kQuicMaxPacket;

// Where the connection's packets go: ngtcp2 compares paths to notice migration, so a
// connection passes the same one always. A connected UDP socket needs no more than that.
struct QuicPath {
  sockaddr_storage local{};
  socklen_t local_length = 0;
  sockaddr_storage remote{};
  socklen_t remote_length = 0;
};

struct QuicSettings {
  uint64_t max_streams_bidi = 100;           // The peer may open this many (a server's).
  uint64_t stream_window = 256 * 1024;       // Receive window per stream.
  uint64_t connection_window = 1024 * 1024;  // Receive window of the connection.
  int64_t idle_timeout_ns = 30'000'000'000;  // max_idle_timeout.
  int64_t handshake_timeout_ns = 10'000'000'000;
};

// A span of bytes to send, laid out as ngtcp2_vec and nghttp3_vec are.
struct QuicVec {
  const uint8_t* base = nullptr;
  size_t length = 0;
};

// How a connection ended, once it has (QuicConnection::Receive and HandleExpiry).
enum class QuicEnd {
  kOpen,          // Not ended.
  kIdleTimeout,   // No packet for the idle timeout (or the handshake's).
  kClosedByPeer,  // The peer's CONNECTION_CLOSE came.
  // The peer's stateless reset came: it no longer knows the connection (RFC 9000 10.3), as a
  // server that restarted or lost its state.
  kStatelessReset,
  kError,  // A protocol or TLS error here, or this side ended it (CloseWithApplicationError,
           // Forget).
};

class QuicConnection {
 public:
  class Events {
   public:
    virtual ~Events() = default;
    virtual void OnHandshakeCompleted() {}
    // Stream `id`'s next bytes in order; `fin`: the peer sends no more on it. The bytes are
    // consumed: the windows open again by as much.
    virtual void OnStreamData(int64_t id, std::span<const uint8_t> data, bool fin) = 0;
    // The peer acknowledged `length` more bytes of stream `id` from `offset`.
    virtual void OnStreamDataAcked(int64_t /*id*/, uint64_t /*offset*/, uint64_t /*length*/) {}
    virtual void OnStreamClosed(int64_t /*id*/, uint64_t /*app_error_code*/) {}
    // The peer allows more streams of ours (OpenStream may succeed again).
    virtual void OnStreamsAvailable() {}
  };

  // Stream data to send, asked for while packets are written (nghttp3's model).
  class StreamSource {
   public:
    virtual ~StreamSource() = default;
    // The next stream with bytes (or a FIN) to send: its id, the bytes in `vecs` (how many in
    // `*count`) and `*fin`; -1 when none.
    virtual int64_t NextStreamData(std::span<QuicVec> vecs, size_t* count, bool* fin) = 0;
    // `bytes` of stream `id`'s data went into a packet (they stay the source's until acked).
    virtual void Consumed(int64_t id, size_t bytes) = 0;
    // Stream `id` may send no more now (flow control): skip it until it is unblocked.
    virtual void Blocked(int64_t id) = 0;
    // The peer let stream `id` send more again.
    virtual void Unblocked(int64_t /*id*/) {}
  };

  // A client connection: the Initial packet waits in the first Write. `resume`: a session
  // an earlier connection to the server kept (TakeSessionTicket), to resume instead of a full
  // handshake; empty: none. `early_params` with it: that connection's TakeEarlyParams, and
  // streams may open and send at once, in 0-RTT packets when the ticket allows early data
  // (early_data_attempted()).
  static absl::StatusOr<std::unique_ptr<QuicConnection>> Client(
      const QuicTlsContext& tls, const QuicPath& path, std::string server_name,
      const QuicSettings& settings, Events* events, int64_t now_ns,
      std::span<const uint8_t> resume = {}, std::span<const uint8_t> early_params = {});
  // A server connection for the client whose first datagram is `initial`, which it then
  // reads (ReceiveInitial): a caller that must hold the connection before its first events
  // (0-RTT requests come with the Initial) calls the two apart. Fails when `initial` is no
  // client Initial.
  static absl::StatusOr<std::unique_ptr<QuicConnection>> Server(const QuicTlsContext& tls,
                                                                const QuicPath& path,
                                                                std::span<const uint8_t> initial,
                                                                const QuicSettings& settings,
                                                                Events* events, int64_t now_ns);
  absl::Status ReceiveInitial(std::span<const uint8_t> initial, int64_t now_ns);
  // Server, then ReceiveInitial.
  static absl::StatusOr<std::unique_ptr<QuicConnection>> Accept(const QuicTlsContext& tls,
                                                                const QuicPath& path,
                                                                std::span<const uint8_t> initial,
                                                                const QuicSettings& settings,
                                                                Events* events, int64_t now_ns);
  ~QuicConnection();
  QuicConnection(const QuicConnection&) = delete;
  QuicConnection& operator=(const QuicConnection&) = delete;

  void set_source(StreamSource* source) { source_ = source; }
  // One received datagram. Returns false once the connection has ended (end() says how).
  bool Receive(std::span<const uint8_t> datagram, int64_t now_ns);
  // Writes the packets due now into `out`, every one `*datagram_size` bytes but the last,
  // which may be shorter: one sendmsg with UDP_SEGMENT sends them. Returns the bytes written
  // (0: nothing to send now). Call again after a send until it returns 0. After an error of
  // its own (end() kError) a connection writes its CONNECTION_CLOSE once, then nothing.
  size_t Write(std::span<uint8_t> out, int64_t now_ns, uint32_t* datagram_size);
  // When HandleExpiry is due (INT64_MAX: never).
  int64_t expiry_ns() const;
  // Retransmissions, ACKs and the idle timeout. Returns false once the connection has ended.
  bool HandleExpiry(int64_t now_ns);
  // A new bidirectional stream of ours: its id, or -1 when the peer allows no more now.
  int64_t OpenStream();
  // A new unidirectional stream of ours (HTTP/3's control and QPACK streams), or -1.
  int64_t OpenUniStream();
  // Ends both directions of stream `id` with `app_error_code` (RESET_STREAM and STOP_SENDING);
  // its close follows through Events::OnStreamClosed.
  void ShutdownStream(int64_t id, uint64_t app_error_code);

  // Ends the connection from above (HTTP/3 broke): its CONNECTION_CLOSE carries
  // `app_error_code`, and end() is kError with `reason`.
  void CloseWithApplicationError(uint64_t app_error_code, std::string reason);
  // A server's connection ends as if the server had lost it: no CONNECTION_CLOSE, but the
  // stateless reset such a server answers with (its token, from the handshake's transport
  // parameters), written by the next Write; end() is kError with `reason`.
  void Forget(std::string reason);

  bool handshake_completed() const;
  // Once the server's NewSessionTicket came: the session to resume on a later connection, into
  // `out`; false until then.
  bool TakeSessionTicket(std::vector<uint8_t>* out) const;
  // Once the handshake is done: the server's transport parameters, which a later connection
  // resuming its session obeys for 0-RTT (RFC 9000 7.4.1), into `out`.
  bool TakeEarlyParams(std::vector<uint8_t>* out) const;
  // 0-RTT: streams were allowed before the handshake; after it, whether the server took the
  // early data. A side that attempted and was refused calls RejectEarlyData: QUIC forgets the
  // streams opened early, and their requests go again on new ones.
  bool early_data_attempted() const { return early_data_attempted_; }
  bool early_data_accepted() const;
  void RejectEarlyData();
  // The handshake's TLS version and cipher (GnuTLS's static names) and whether it resumed a
  // session.
  const char* tls_version() const;
  const char* tls_cipher() const;
  bool tls_resumed() const;
  // Bidirectional streams the peer lets this side open now (OpenStream succeeds as often).
  uint64_t streams_bidi_left() const;
  QuicEnd end() const { return end_; }
  // kClosedByPeer: the code the peer's CONNECTION_CLOSE carried, and whether it is an
  // application's (HTTP/3's) rather than QUIC's own.
  uint64_t peer_error_code() const { return peer_error_code_; }
  bool peer_error_is_application() const { return peer_error_is_application_; }
  // What ended it: ngtcp2's or GnuTLS's reason, or the peer's error code.
  const std::string& end_reason() const { return end_reason_; }
  // Packets this side sent and then declared lost (RFC 9002 6.1). QUIC sends no packet again:
  // their frames go out in new packets, which packets_sent counts.
  uint64_t packets_lost() const { return packets_lost_; }

 private:
  QuicConnection() = default;
  absl::Status Start(const QuicTlsContext& tls, bool server, const QuicSettings& settings,
                     int64_t now_ns, std::span<const uint8_t> initial,
                     std::span<const uint8_t> resume, std::span<const uint8_t> early_params);
  bool Fail(int code, QuicEnd end);
  // One packet into `out` (0: nothing more to send), with stream data when a source has some.
  int64_t WritePacket(std::span<uint8_t> out, int64_t now_ns);

  static void QlogCallback(void* self, uint32_t flags, const void* data, size_t length);
  static int OnHandshakeCompletedCallback(ngtcp2_conn* conn, void* self);
  static int OnStreamDataCallback(ngtcp2_conn* conn, uint32_t flags, int64_t id, uint64_t offset,
                                  const uint8_t* data, size_t length, void* self, void* stream);
  static int OnAckedCallback(ngtcp2_conn* conn, int64_t id, uint64_t offset, uint64_t length,
                             void* self, void* stream);
  static int OnStreamCloseCallback(ngtcp2_conn* conn, uint32_t flags, int64_t id,
                                   uint64_t app_error_code, void* self, void* stream);
  static int OnExtendStreamsCallback(ngtcp2_conn* conn, uint64_t max_streams, void* self);
  static int OnExtendStreamDataCallback(ngtcp2_conn* conn, int64_t id, uint64_t max_data,
                                        void* self, void* stream);
  static int OnStatelessResetCallback(ngtcp2_conn* conn,
                                      const struct ngtcp2_pkt_stateless_reset* sr, void* self);

  ngtcp2_conn* conn_ = nullptr;
  gnutls_session_t session_ = nullptr;
  std::unique_ptr<struct ngtcp2_crypto_conn_ref> ref_;
  QuicPath path_;
  std::string server_name_;  // GnuTLS keeps a pointer to it (verification).
  Events* events_ = nullptr;
  StreamSource* source_ = nullptr;
  QuicEnd end_ = QuicEnd::kOpen;
  std::string end_reason_;
  int error_ = 0;  // The ngtcp2 error that ended it here (kError).
  uint64_t peer_error_code_ = 0;
  bool peer_error_is_application_ = false;
  // Set when the application ended it (CloseWithApplicationError): the code it closes with.
  uint64_t application_error_ = 0;
  bool application_close_ = false;
  bool close_sent_ = false;       // Its CONNECTION_CLOSE (or stateless reset) went out.
  bool forgotten_ = false;        // Forget: a stateless reset instead of CONNECTION_CLOSE.
  bool stateless_reset_ = false;  // The peer's stateless reset came.
  // A server's stateless reset token, given to the client in its transport parameters.
  std::array<uint8_t, 16> reset_token_{};
  uint64_t packets_lost_ = 0;
  bool early_data_attempted_ = false;
  // A packet written after a run of another size: it goes out first in the next Write.
  std::unique_ptr<uint8_t[]> held_;
  size_t held_length_ = 0;
};

}  // namespace uringload::net
