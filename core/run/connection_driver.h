// ConnectionDriver: what one protocol does on a worker's connections, h2load's session idea.
// The worker owns the connections, the ring, the timers, pacing and accounting, and knows no
// protocol; a driver owns its per-connection state (by slot) and turns a connection's
// transport events (completions, its timeout) into request events, which it hands back
// through the DriverHost. One driver object per protocol per worker serves every connection
// that speaks it; dispatch is one virtual call per completion or per request, never per byte.
// Adding a protocol is a driver (this interface), a line in core/run/drivers.cc and its tests.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/flow/flow_user.h"
#include "core/outcome.h"
#include "core/run/connection.h"
#include "core/run/run_plan.h"
#include "core/run/stream_meter.h"
#include "core/run/worker_stats.h"
#include "net/event_loop.h"
#include "proto/request_template.h"

namespace uringload::core {

// What a request's end says of its response, for the checks and the stats.
struct ResponseFacts {
  int status = 0;           // 0: no response.
  bool body_found = false;  // The body held the checked text.
  int grpc_status = -1;     // An ok gRPC call's code (-1: not a gRPC call).
  uint64_t grpc_messages = 0;
  uint64_t events = 0;  // --stream: the events its body carried.
};

// What the worker gives its drivers: read-only context, and the request events they report.
class DriverHost {
 public:
  // The next request `c` is to send now, if any (started: it must end in one outcome).
  virtual bool NextRequest(Connection& c, PendingRequest* request) = 0;
  // Whether `c` may still take a request, now or later.
  virtual bool MoreFor(const Connection& c) const = 0;
  // Open model: `c` may take a request when one falls due.
  virtual void List(Connection& c) = 0;
  // The request ended with `outcome`: judged (checks, the flow's step) and recorded. Returns
  // the outcome it ends with; the driver drops it, then calls AfterEnd (flows only:
  // DriverEnv::flow).
  virtual Outcome RecordEnd(Connection& c, const PendingRequest& r, Outcome outcome, int error,
                            const ResponseFacts& response) = 0;
  virtual void AfterEnd(Connection& c, const PendingRequest& r, Outcome outcome) = 0;
  // The request was never answered: it goes out again (it stays started; counted retried).
  virtual void Retry(Connection& c, const PendingRequest& r) = 0;
  // The transport opened and speaks `driver`'s protocol: the worker hands it the requests
  // that waited (ConnectionDriver::Open) and fills it.
  virtual void Opened(Connection& c, ConnectionDriver* driver) = 0;
  virtual void Close(Connection& c) = 0;
  // Every request on `c` ends with `outcome` (`error`: its errno or ParseFailure); it closes.
  virtual void Fail(Connection& c, Outcome outcome, int error) = 0;
  // During a drain of completions: queues `c` to be flushed at its end and returns true.
  virtual bool DeferFlush(Connection& c) = 0;
  // One receive on `c` ended `responses` responses (the batch policy's view of the peer).
  virtual void CountReceiveYield(Connection& c, uint32_t responses, bool more_to_read) = 0;
  // What a request's template renders from (a flow's user keeps its row and variables).
  virtual proto::TemplateContext ContextFor(Connection& c, const PendingRequest& r,
                                            const proto::RequestTemplate& tmpl) = 0;

 protected:
  ~DriverHost() = default;
};

// What every driver reads, set once by the worker, and what the worker and the drivers do
// alike on each request (inline: no call through the host per request).
struct DriverEnv {
  const RunPlan* plan = nullptr;
  WorkerStats* stats = nullptr;
  net::EventLoop* loop = nullptr;
  const int64_t* now = nullptr;  // The clock right after the last wait.
  // --flow: the users; slot s is user s mod users' connection (a user holds plan->lanes).
  std::span<FlowUser> users;
  // One per (target, address): templates[target * addresses + address].
  std::span<const proto::RequestTemplate> templates;
  uint32_t connections = 0;
  int64_t timeout_ns = 0;
  int64_t connect_timeout_ns = 0;
  bool open_model = false;  // Requests come at the schedule's pace (--rate).
  int64_t warmup_ns = 0;    // --warmup, from origin_ns.
  int64_t origin_ns = 0;
  // Slots with sends queued since the last submit (the worker stamps them: Stamp).
  std::vector<uint32_t>* unstamped = nullptr;
  // --stream: the events of the responses (null: bodies are not read as streams).
  StreamMeter* streams = nullptr;

  bool flow() const { return !users.empty(); }
  // The stream meter's entry of `c`'s request entry `k` (HTTP/1.1: 0, its oldest).
  uint32_t StreamEntry(const Connection& c, uint32_t k) const {
    return c.slot * static_cast<uint32_t>(c.pending.size()) + k;
  }
  FlowUser* UserOf(uint32_t slot) const {
    return users.empty() ? nullptr : &users[slot < users.size() ? slot : slot % users.size()];
  }
  const proto::RequestTemplate& TemplateFor(const Connection& c, const PendingRequest& r) const {
    return templates[r.target * plan->addresses.size() + c.address];
  }
  // `r`'s response came as far as its head, or its body's first byte, by the current clock
  // (the completions' batch): the first time counts.
  void HeadCame(PendingRequest& r) const {
    if (r.head_ns == 0) r.head_ns = *now;
  }
  void BodyCame(PendingRequest& r) const {
    if (r.body_ns == 0) r.body_ns = *now;
  }
  // Within --warmup: bytes then are not counted, as the requests then are not (one clock read
  // per completion only when there is a warmup).
  bool InWarmup() const { return warmup_ns > 0 && loop->Now() - origin_ns < warmup_ns; }
  // `c`'s sends queued now go out with the next submit, which calls ConnectionDriver::Stamp.
  void QueueStamp(const Connection& c) const { unstamped->push_back(c.slot); }
  // A request goes out with the submit at `now`: its latency and timeout run from then. Open
  // model: how late that is for its due time is the client's own lag, unless it waited for a
  // connection (PendingRequest::waited).
  void StampRequest(PendingRequest& r, int64_t now) const {
    r.sent_ns = now;
    r.head_ns = r.body_ns = 0;  // Sent again: its first answer's times do not count.
    if (open_model && !r.warmup && !r.waited) stats->ScheduleLag(now - r.intended_ns);
  }
};

class ConnectionDriver {
 public:
  virtual ~ConnectionDriver() = default;

  // Opening. A driver with its own transport (QUIC) connects the slot itself and handles its
  // connect completion; TCP connections are the worker's until they open.
  virtual void Connect(Connection& /*c*/) {}
  virtual void OnConnected(Connection& /*c*/, const net::Completion& /*completion*/) {}
  // Its own transport did not open within --connect-timeout (TCP's connect timeout is the
  // worker's).
  virtual void OnConnectTimeout(Connection& /*c*/) {}
  // The connection opened (kActive): the c.count requests that waited in its ring are now
  // the driver's.
  virtual void Open(Connection& c) = 0;

  // Requests on an open connection.
  virtual uint32_t Capacity(const Connection& c) const = 0;  // In flight at most, now.
  virtual void Add(Connection& c, const PendingRequest& request) = 0;
  virtual void Flush(Connection& c) = 0;   // What waits goes out, unless a send is in flight.
  virtual void Refill(Connection& c) = 0;  // After ends: more requests, wait, or close.
  virtual void Stamp(Connection& c, int64_t now) = 0;  // Its queued sends went out at `now`.
  virtual void FailAll(Connection& c, Outcome outcome, int error) = 0;  // The caller closes.

  // Transport events of an open connection (and of one a driver's own transport opens).
  virtual void OnSent(Connection& c, int res) = 0;
  virtual void OnReceived(Connection& c, const net::Completion& completion) = 0;
  virtual void OnTimeout(Connection& c, int64_t now) = 0;  // Its oldest request's timeout.
  virtual void OnTransportTimer(Connection& /*c*/, int64_t /*now*/) {}
  virtual void OnClose(Connection& /*c*/) {}  // It is about to close (a goodbye to send).
  virtual void Release(Connection& /*c*/) {}  // It closed: per-connection state goes back.
};

// The timer owner bit of a driver's own per-connection timer (owner: slot | kTransportTimer).
inline constexpr uint32_t kTransportTimer = 1u << 31;

}  // namespace uringload::core
