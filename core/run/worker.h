// Worker: one thread, one event loop (net::EventLoop), a fixed set of connections driven as
// state machines by its completion handlers. Takes request indexes from the shared
// RequestSource, records into its own WorkerStats. Nothing on its hot path allocates, locks or
// makes a syscall beyond io_uring_enter (binding a --source address costs a few syscalls per
// new connection, see net/ring_event_loop.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "core/flow/flow_user.h"
#include "core/run/batch_policy.h"
#include "core/run/connect_ramp.h"
#include "core/run/connection.h"
#include "core/run/http3_connection.h"
#include "core/run/request_pacer.h"
#include "core/run/request_source.h"
#include "core/run/run_plan.h"
#include "core/run/worker_stats.h"
#include "core/wake_margin.h"
#include "net/event_loop.h"
#include "net/quic_send_buffers.h"
#include "proto/http2_client_session.h"

namespace uringload::core {

struct WorkerConfig {
  const RunPlan* plan = nullptr;
  // One per (target, address): templates[target * addresses + address].
  std::span<const proto::RequestTemplate> templates;
  uint32_t connections = 0;
  uint32_t first_connection = 0;  // Global index of this worker's first connection.
  uint32_t index = 0;             // This worker's number, of plan->threads.
  int64_t start_ns = 0;           // The run's start, shared by all workers (0: when Run starts).
  int64_t deadline_ns = 0;        // Stop starting requests then (0: no deadline).
  // --start-at: start_ns is a future moment; Run sets up its ring and buffers, then waits.
  bool wait_for_start = false;
  uint64_t block_size = 1;  // Indexes claimed from the source at a time.
};

class Worker : public net::CompletionHandler,
               private proto::Http2ClientSession::Events,
               private Http3Connection::Events {
 public:
  // `loop`: the event loop to drive (tests pass a fake); null: Run() makes a RingEventLoop.
  Worker(const WorkerConfig& config, RequestSource* source, WorkerStats* stats,
         const std::atomic<bool>* stop, std::unique_ptr<net::EventLoop> loop = nullptr);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs until every request this worker started has an outcome. Call in the worker's thread.
  absl::Status Run();
  void OnCompletion(const net::Completion& completion) override;

 private:
  absl::Status Setup();
  // The start (worker_start.cc).
  void WaitForStart();
  void StartAll();
  void CheckStop(int64_t now);
  void AbortInFlight();
  unsigned StampQueuedSends(int64_t now);
  absl::Status SubmitAndWait(int64_t now, unsigned sends);
  // How long the next wait may take; `for_due`: set when the next due send bounds it.
  int64_t WaitBudget(int64_t now, bool* for_due) const;
  void CountReceiveYield(Connection& c, uint32_t responses, bool more_to_read);

  void AssignRoutes();
  void RequestConnect(Connection& c);
  void AdmitQueuedConnects();
  void Connect(Connection& c);
  void LeaveConnecting(Connection& c);
  bool Queued(const Connection& c) const;
  void Close(Connection& c);
  void Retire(Connection& c);          // No request will come for it.
  void ConnectForNext(Connection& c);  // Idle: its next request, the list, or done.
  void Fail(Connection& c, Outcome outcome, int error);

  // Requests (worker_requests.cc).
  bool MoreToCome() const;
  // Whether `c` may still take a request: a flow's user mid-iteration, or MoreToCome().
  bool MoreFor(const Connection& c) const;
  // Within --warmup: bytes then are not counted, as the requests then are not (one clock read
  // per completion only when there is a warmup).
  bool InWarmup() const { return warmup_ns_ > 0 && loop_->Now() - origin_ns_ < warmup_ns_; }
  // The next request `c` is to send now, if any (a flow's user: its next step, or a new
  // iteration when the schedule has one).
  bool NextRequest(Connection& c, PendingRequest* request);
  bool NextScheduled(PendingRequest* request);
  const proto::RequestTemplate& TemplateFor(const Connection& c, const PendingRequest& r) const;
  proto::TemplateContext ContextFor(Connection& c, const PendingRequest& request,
                                    const proto::RequestTemplate& tmpl);
  void AddRequest(Connection& c, const PendingRequest& request);
  void Fill(Connection& c);
  void Flush(Connection& c);
  void Refill(Connection& c);
  void FinishRequest(Connection& c, Outcome outcome, int error);
  void Requeue(Connection& c);
  void ScheduleTimeout(Connection& c);
  void List(Connection& c);
  void StartDue(int64_t now);
  void Stamp(PendingRequest& r, int64_t now);
  void RetireIdle();

  void OnConnect(Connection& c, const net::Completion& completion);
  void OnSend(Connection& c, int res);
  void OnReceive(Connection& c, const net::Completion& completion);
  void OnData(Connection& c, std::string_view data);
  void OnPeerClosed(Connection& c);
  void OnClosed(Connection& c);
  void OnTimeout(Connection& c, int64_t now);
  // Handles the completions that are ready, then sends what they left for HTTP/2 connections.
  void DrainCompletions();
  // Records the outcome of request `r` (its stats; the connection's bookkeeping is the
  // caller's). A complete response (ok) with `status`, whose body contained the checked text
  // or not, ends check_failed if it misses the plan's checks. An ok gRPC call's
  // `grpc_status` is counted by code (-1: not a gRPC call) with its `grpc_messages`.
  void Record(const PendingRequest& r, Outcome outcome, int error, int status,
              bool body_found = false, int grpc_status = -1, uint64_t grpc_messages = 0);

  // Flows (worker_flow.cc): each connection is a virtual user (users_[slot]).
  void SetupUsers();
  void AbortStepRetries();
  bool NextStep(Connection& c, PendingRequest* request);
  // The outcome of the step whose request ended `outcome` on `c` (a complete response with
  // `status` is judged by the step's checks; `error` becomes the missed one's CheckFailure).
  Outcome JudgeStep(Connection& c, Outcome outcome, int status, int grpc_status, int* error);
  // After the step's outcome: the iteration goes on, thinks, completes or is aborted.
  void AfterStep(Connection& c, const PendingRequest& r, Outcome outcome);
  void ScheduleThink(Connection& c);
  void ResumeUser(Connection& c);           // A think ended.
  void CutThinkingUsers();                  // The run stopped taking requests.
  bool Resting(const Connection& c) const;  // Its user is mid-iteration or thinking.

  // HTTP/2 (worker_http2.cc): the same steps for a connection whose requests are streams.
  uint32_t Capacity(const Connection& c) const;
  bool MayOpenStreams(const Connection& c) const;
  proto::Http2ClientSession& Session(const Connection& c) { return *sessions_[c.slot]; }
  absl::Status StartSession(Connection& c);
  void AddStream(Connection& c, const PendingRequest& request);
  void FlushStreams(Connection& c);
  void FlushQueuedStreams();
  void RefillStreams(Connection& c);
  // `grpc_status`, `grpc_messages`: an ok gRPC call's (-1: not a gRPC call).
  void FinishStream(Connection& c, uint32_t k, Outcome outcome, int error, int status,
                    bool body_found = false, int grpc_status = -1, uint64_t grpc_messages = 0);
  void RetryStream(Connection& c, uint32_t k);
  void LoseConnection(Connection& c, int error);
  void ScheduleStreamTimeout(Connection& c);
  void TimeOutStreams(Connection& c, int64_t now);
  void StampStreams(Connection& c, int64_t now);
  void OnStreamsSent(Connection& c, uint32_t bytes);
  void OnStreamData(Connection& c, std::string_view data);
  void OnStreamEnd(const proto::Http2StreamEnd& end) override;
  void OnGrpcFirstMessage(uint32_t tag) override;

  // HTTP/3 (worker_http3.cc): each connection a connected UDP socket under an Http3Connection,
  // its streams the same pool of -p entries as HTTP/2's. Until QUIC's handshake ends the
  // connection is kConnecting, its requests waiting as they do for a TCP connect.
  struct QuicSlot {
    net::TimerNode expiry;    // QUIC's own timer (owner: slot | kQuicTimer).
    net::QuicSendBuffer out;  // The packets of the send in flight (from quic_buffers_).
    std::unique_ptr<Http3Connection> h3;
    int64_t socket_ns = 0;           // Connect call to the connected UDP socket.
    uint32_t streams_opened = 0;     // Since the handshake (--no-keepalive: one).
    bool ready = false;              // The handshake ended during the last input (OnReady).
    bool ticket_taken = false;       // Its session was kept for the connections after it.
    uint64_t losses_counted = 0;     // Of QUIC's packets_lost, those in the stats.
    bool handshake_counted = false;  // Its handshake is in the stats (0-RTT: after it opened).
    bool resubmit = false;           // The server refused the 0-RTT data: the requests go again.
  };
  static constexpr uint32_t kQuicTimer = 1u << 31;
  void OnTimer(net::TimerNode* node, int64_t now);
  Http3Connection& Http3Of(const Connection& c) { return *quic_[c.slot].h3; }
  bool IsStreams(const Connection& c) const { return c.protocol != Protocol::kHttp1; }
  void ConnectQuic(Connection& c);
  void OnQuicConnected(Connection& c, int res);
  void OnQuicReceive(Connection& c, const net::Completion& completion);
  void OnQuicSent(Connection& c, int res);
  void OnQuicExpiry(Connection& c, int64_t now);
  // After input (datagrams, an expiry): a handshake that ended opens the connection, stream
  // ends refill it, and what QUIC has to send goes out.
  void AfterQuicInput(Connection& c, uint16_t open_before, uint32_t responses_before);
  void OpenQuic(Connection& c);
  void FlushQuic(Connection& c);
  bool SendQuicPackets(Connection& c);
  void ScheduleQuicExpiry(Connection& c);
  // The packets QUIC declared lost since the last look (ACKs and loss timers) into the stats.
  void CountQuicLosses(Connection& c);
  // The QUIC connection ended (end() says how): every request on it gets its outcome.
  void EndQuic(Connection& c);
  void LoseQuic(Connection& c, Outcome outcome, int cause);
  void CloseQuic(Connection& c);
  void OnReady() override;
  void OnEarlyDataRejected() override;
  // The handshake's numbers into the stats, once it ended (with 0-RTT, after OpenQuic).
  void CountQuicHandshake(Connection& c);
  // Refused 0-RTT: every request in flight goes again on a new stream of the connection.
  void ResubmitQuic(Connection& c);
  void OnStreamEnd(const proto::Http3StreamEnd& end) override;

  const WorkerConfig config_;
  RequestPacer pacer_;
  WorkerStats* stats_;
  const std::atomic<bool>* stop_;
  int64_t timeout_ns_;
  int64_t connect_timeout_ns_;
  BatchPolicy batch_;       // How many completions to wait for, and how long.
  WakeMargin wake_margin_;  // Open model: how long before a due send to stop sleeping.
  int64_t polled_ns_ = 0;   // Time spent in polls that found nothing (not busy: WorkerFinished).
  bool polling_ = false;    // The last wait was a poll (a due send is near, or --busy-poll).
  uint64_t completions_handled_ = 0;

  std::unique_ptr<net::EventLoop> loop_;
  int64_t warmup_ns_;
  std::vector<Connection> connections_;
  std::vector<PendingRequest> pending_storage_;  // -p entries per connection.
  std::vector<char> request_storage_;            // -p rendered requests per connection.
  std::optional<DataFile::Reader> rows_;         // --data, when a template names a column.
  const FlowProgram* flow_ = nullptr;            // --flow.
  std::vector<FlowUser> users_;                  // --flow: by slot.
  std::unique_ptr<PatternScratch> patterns_;     // --flow with regexes: where they search.
  // --flow over HTTP/2, by slot: a step the server refused unprocessed, sent again by its
  // user (in_use: one waits), not by whichever connection comes first.
  std::vector<PendingRequest> step_retries_;
  std::vector<uint32_t> unstamped_sends_;  // Slots with sends queued since the last submit.
  // HTTP/2 slots whose frames wait for the end of the drain (Worker::FlushStreams), and
  // whether a drain is under way.
  std::vector<uint32_t> queued_flushes_;
  bool in_drain_ = false;
  std::vector<PendingRequest> retry_;  // Sent behind a response that closed the connection.
  std::vector<uint32_t> listed_;       // Open model: connections that may take requests.
  // HTTP/2 connections' sessions by slot, made when a slot first speaks h2 and reused, and the
  // memory they share.
  proto::Http2Memory http2_memory_;
  std::vector<std::unique_ptr<proto::Http2ClientSession>> sessions_;
  // HTTP/2, by slot: the clock after the wait that brought the connection's latest receive. A
  // stream that times out with nothing received since its send means the connection is dead.
  std::vector<int64_t> received_ns_;
  Connection* session_connection_ = nullptr;  // Whose session is reporting (OnStreamEnd).
  bool quic_run_ = false;                     // --http3: every connection is QUIC.
  std::vector<QuicSlot> quic_;                // --http3: by slot.
  // --http3: the session the last connection's server gave, resumed by the next connects.
  std::vector<uint8_t> quic_ticket_;
  std::vector<uint8_t> quic_early_params_;  // --0rtt: its server's transport parameters.
  net::QuicSendBuffers quic_buffers_;
  int64_t late_since_ns_ = -1;  // Requests due by then found every connection busy.
  int64_t origin_ns_ = 0;
  bool retired_ = false;  // Idle connections were closed: no request will come any more.
  std::optional<ConnectRamp> ramp_;
  int64_t started_ns_ = 0;
  uint32_t ramp_remaining_ = 0;    // Connections whose first connect attempt has not ended.
  uint32_t live_ = 0;              // Connections not yet kDone.
  uint32_t in_flight_ = 0;         // Started requests without an outcome.
  uint32_t responses_parsed_ = 0;  // Complete responses parsed (wraps; only differences count).
  int64_t completions_at_ns_ = 0;  // Clock read right after the last wait.
  bool draining_ = false;
  bool preconnecting_ = false;  // --preconnect: connections open before the start, no requests.
  int64_t abort_at_ns_ = 0;     // Set by a stop request.
  bool aborted_ = false;
};

}  // namespace uringload::core
