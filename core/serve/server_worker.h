// ServerWorker: one thread of `uringload serve`: its own ring, an SO_REUSEPORT listener per
// listen address with multishot accept into direct descriptors, multishot receive into its
// buffer ring, llhttp request parsing, delays on its timer wheel and fault injection.
// Pipelined responses that are due together leave in one send. With --http3 the listeners
// are UDP sockets and each client gets a UDP socket of its own (core/serve/server_http3.cc).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "core/serve/request_log.h"
#include "core/serve/serve_plan.h"
#include "core/serve/server_connection.h"
#include "core/serve/server_stats.h"
#include "core/serve/service_queue.h"
#include "net/base/seeded_random.h"
#include "net/event_loop.h"
#include "net/listener.h"
#include "net/quic_send_buffers.h"

namespace uringload::core {

// Prebuilt responses shared by all workers when the body does not depend on the request.
struct FixedResponses {
  std::string ok_keep_alive, ok_close, status_keep_alive, status_close;
};
// The plan's prebuilt responses (all empty when the body echoes the request).
FixedResponses MakeFixedResponses(const ServePlan& plan);

class ServerWorker : public net::CompletionHandler,
                     private proto::Http2ServerSession::Events,
                     private Http3ServerConnection::Events {
 public:
  // `loop`: the event loop to drive (tests pass a fake); null: Run() makes a RingEventLoop.
  ServerWorker(const ServePlan* plan, const FixedResponses* fixed, uint32_t index,
               ServerStats* stats, const std::atomic<bool>* stop,
               std::unique_ptr<net::EventLoop> loop = nullptr);
  ServerWorker(const ServerWorker&) = delete;
  ServerWorker& operator=(const ServerWorker&) = delete;

  // Opens the listeners (called before Run so bind errors reach the caller first). A Unix
  // socket binds once for all workers: `shared[i]`, when given and >= 0, is the listening
  // socket of plan->listen[i], which this worker accepts on through a duplicate of its own.
  absl::Status Listen(std::span<const int> shared = {});
  // Serves until stop is set. Call in the worker's thread.
  absl::Status Run();
  void OnCompletion(const net::Completion& completion) override;

 private:
  absl::Status Setup();
  void OnAccept(const net::Completion& completion);
  void OnReceive(uint32_t slot, const net::Completion& completion);
  void OnData(uint32_t slot, std::string_view data);
  void Enqueue(ServerConnection& c, int64_t now);
  void Reject(uint32_t slot, ServerConnection& c, int64_t now);
  void Pump(uint32_t slot);
  void Respond(uint32_t slot, ServerConnection& c);
  std::string_view ResponseBytes(ServerConnection& c, const PendingResponse& p);
  bool JoinsBurst(const ServerConnection& c, int64_t now) const;
  std::string_view Burst(ServerConnection& c, std::string_view first, bool& then_close);
  void Send(uint32_t slot, ServerConnection& c, std::string_view bytes, bool then_close);
  void OnSend(uint32_t slot, int res);
  // `notify`: over TLS, send close_notify first (not for the no_close_notify fault).
  void Close(uint32_t slot, bool notify = true);
  ServerConnection& Conn(uint32_t slot);
  // HTTP/2 connections (server_http2.cc).
  void StartHttp2(uint32_t slot, ServerConnection& c);
  void OnHttp2Data(uint32_t slot, ServerConnection& c, std::string_view data);
  void OnRequest(const proto::Http2ServerSession::Request& request) override;
  void PumpHttp2(uint32_t slot, ServerConnection& c);
  void AnswerStream(ServerConnection& c, const Http2Response& r);
  void FlushHttp2(uint32_t slot, ServerConnection& c);
  // HTTP/3 connections (server_http3.cc).
  static constexpr uint32_t kQuicTimer = 1u << 31;
  void OnTimer(uint32_t owner);
  void StartHttp3Listeners();
  void OnHttp3Completion(const net::Completion& completion);
  void OnDatagrams(uint32_t slot, const net::Completion& completion);
  // The slot whose connection the datagram from `peer` is for, a new connection when it is a
  // new client's Initial (which it read: `*read`), or -1 (dropped).
  int64_t Http3SlotFor(std::string_view peer, socklen_t peer_length, uint32_t listener,
                       std::span<const uint8_t> datagram, bool* read);
  int64_t AcceptHttp3(std::string_view peer, socklen_t peer_length, uint32_t listener,
                      std::span<const uint8_t> initial);
  void OnRequest(const proto::Http3ServerSession::Request& request) override;
  void PumpHttp3(uint32_t slot, ServerConnection& c);
  void AnswerHttp3(ServerConnection& c, const Http3Response& r);
  // Sends what QUIC has due (one send in flight), moves QUIC's timer, and closes a connection
  // that ended once its CONNECTION_CLOSE went.
  void FlushHttp3(uint32_t slot, ServerConnection& c);
  void CloseHttp3(uint32_t slot, ServerConnection& c);

  const ServePlan* plan_;
  const FixedResponses* fixed_;
  ServerStats* stats_;
  const std::atomic<bool>* stop_;
  int incoming_cpu_;  // SO_INCOMING_CPU of this worker's listeners (-1: none, no --cpus).
  SeededStream rng_;
  ServiceQueue service_;                   // --service-slots.
  std::optional<RequestLog::Writer> log_;  // --log-requests.
  std::vector<net::UniqueFd> listeners_;
  std::unique_ptr<net::EventLoop> loop_;
  // Indexed by direct-descriptor slot; allocated on a slot's first use and reused after.
  proto::Http2Memory http2_memory_;  // Shared by the HTTP/2 connections' sessions.
  std::vector<std::unique_ptr<ServerConnection>> connections_;
  bool warned_table_full_ = false;
  uint32_t session_slot_ = 0;  // Whose HTTP/2 or HTTP/3 session is reporting (OnRequest).
  // --http3: the slots past the listeners' no connection holds (closed ones return on kClose),
  // and each client's slot by its address.
  std::vector<uint32_t> free_http3_slots_;
  absl::flat_hash_map<std::string, uint32_t> http3_slots_;
  net::QuicSendBuffers quic_buffers_;
};

}  // namespace uringload::core
