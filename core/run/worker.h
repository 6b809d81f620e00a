// Worker: one thread, one event loop (net::EventLoop), a fixed set of connections driven as
// state machines by its completion handlers. It owns the connections, the timers, pacing and
// accounting, and knows no protocol: each open connection's driver (core/run/drivers.h)
// speaks its protocol and reports request events back (DriverHost). Takes request indexes
// from the shared RequestSource, records into its own WorkerStats. Opening connections is its
// ConnectionOpener's; a flow's virtual users ride on its connections (FlowUsers, asking it
// through FlowHost). Nothing on its hot path allocates, locks or makes a syscall beyond
// io_uring_enter (binding a --source address costs a few syscalls per new connection, see
// net/ring_event_loop.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "core/run/batch_policy.h"
#include "core/run/connection.h"
#include "core/run/connection_driver.h"
#include "core/run/connection_opener.h"
#include "core/run/drivers.h"
#include "core/run/flow_users.h"
#include "core/run/request_pacer.h"
#include "core/run/request_source.h"
#include "core/run/run_plan.h"
#include "core/run/worker_stats.h"
#include "core/wake_margin.h"
#include "net/event_loop.h"

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

class Worker final : public net::CompletionHandler, private DriverHost, private FlowHost {
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

  // Connections (worker_completions.cc); opening them is opener_'s.
  bool Queued(const Connection& c) const override { return opener_->Queued(c); }
  void Retire(Connection& c) override;          // No request will come for it.
  void ConnectForNext(Connection& c) override;  // Idle: its next request, the list, or done.
  void OnTcpConnect(Connection& c, const net::Completion& completion);
  void OnClosed(Connection& c);
  void OnTimer(net::TimerNode* node, int64_t now);
  void OnTimeout(Connection& c, int64_t now);
  // Handles the completions that are ready, then flushes the connections that deferred it.
  void DrainCompletions();
  // Ends the oldest request waiting in the ring of a connection that is not open.
  void FinishWaiting(Connection& c, Outcome outcome, int error);

  // Requests (worker_requests.cc).
  bool MoreToCome() const override;
  bool NextScheduled(PendingRequest* request) override;
  // FlowHost: a flow's steps in and out of flight.
  void StepStarted(const PendingRequest& r) override;
  void StepDropped(const PendingRequest& r) override;
  // Renders into the connection's driver, or waits in its ring until it opens.
  void AddRequest(Connection& c, const PendingRequest& request);
  // Takes as many requests as are due and fit.
  void Fill(Connection& c);
  void StartDue(int64_t now);
  void RetireIdle();
  // Records the outcome of request `r` (its stats; the connection's bookkeeping is the
  // caller's). A complete response (ok) ends check_failed if it misses the plan's checks; an
  // ok gRPC call's status is counted by code with its messages.
  void Record(const PendingRequest& r, Outcome outcome, int error, const ResponseFacts& response);

  // DriverHost: what the drivers report and ask.
  bool NextRequest(Connection& c, PendingRequest* request) override;
  // Whether `c` may still take a request: a flow's user mid-iteration, or MoreToCome().
  bool MoreFor(const Connection& c) const override;
  void List(Connection& c) override;
  Outcome RecordEnd(Connection& c, const PendingRequest& r, Outcome outcome, int error,
                    const ResponseFacts& response) override;
  void AfterEnd(Connection& c, const PendingRequest& r, Outcome outcome) override;
  void Retry(Connection& c, const PendingRequest& r) override;
  void Opened(Connection& c, ConnectionDriver* driver) override;
  void Close(Connection& c) override;
  void Fail(Connection& c, Outcome outcome, int error) override;
  bool DeferFlush(Connection& c) override;
  void CountReceiveYield(Connection& c, uint32_t responses, bool more_to_read) override;
  proto::TemplateContext ContextFor(Connection& c, const PendingRequest& request,
                                    const proto::RequestTemplate& tmpl) override;

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
  DriverEnv env_;                                // What the drivers read (Setup).
  Drivers drivers_;                              // The protocols its connections speak.
  std::optional<DataFile::Reader> rows_;         // --data, when a template names a column.
  std::optional<FlowUsers> flows_;               // --flow: the virtual users.
  std::optional<StreamMeter> streams_;           // --stream: the responses' events.
  std::vector<uint32_t> unstamped_sends_;        // Slots with sends queued since the last submit.
  // Slots whose sends wait for the end of the drain (DeferFlush), and whether a drain is
  // under way.
  std::vector<uint32_t> queued_flushes_;
  bool in_drain_ = false;
  std::vector<PendingRequest> retry_;  // Never answered: they go out again.
  std::vector<uint32_t> listed_;       // Open model: connections that may take requests.
  int64_t late_since_ns_ = -1;         // Requests due by then found every connection busy.
  int64_t origin_ns_ = 0;
  bool retired_ = false;  // Idle connections were closed: no request will come any more.
  std::optional<ConnectionOpener> opener_;
  int64_t started_ns_ = 0;
  uint32_t live_ = 0;              // Connections not yet kDone.
  uint32_t in_flight_ = 0;         // Started requests without an outcome.
  int64_t completions_at_ns_ = 0;  // Clock read right after the last wait.
  bool draining_ = false;
  bool preconnecting_ = false;  // --preconnect: connections open before the start, no requests.
  int64_t abort_at_ns_ = 0;     // Set by a stop request.
  bool aborted_ = false;
};

}  // namespace uringload::core
