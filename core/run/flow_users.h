// FlowUsers: a worker's virtual users for a flow run (--flow), riding on its connections. Each
// user sends its iteration's steps one after another: it takes an iteration on its first
// connection when it has none (closed model at once, open model when one is due), then its
// steps follow its answers, pausing for thinks on that connection's timer; a step that fails or
// misses a check aborts the iteration there. Over several origins, as a browser, a user holds a
// connection per origin it uses (plan.lanes of them, slot user + lane x users; past that the one
// used least recently is bound anew): each step goes on its origin's, and the user's next move
// waits for the end of the drain that ended its last step (QueueWake, FlushWakes), so no
// driver is entered from inside another. The worker keeps the connections; the users ask it
// (FlowHost) for iterations and for what a connection does.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/flow/flow_user.h"
#include "core/outcome.h"
#include "core/run/connection.h"
#include "core/run/data_file.h"
#include "core/run/run_plan.h"
#include "core/run/worker_stats.h"
#include "net/timer_wheel.h"

namespace uringload::core {

// What the users ask of the worker whose connections they ride on.
class FlowHost {
 public:
  // The schedule's next iteration, started (its first step counted as a request), if one is
  // due; whether any may still come.
  virtual bool NextScheduled(PendingRequest* request) = 0;
  virtual bool MoreToCome() const = 0;
  // A step of an iteration under way starts (in flight); one waiting to go again never went
  // (the run was aborted: it ends as the requests in flight do).
  virtual void StepStarted(const PendingRequest& r) = 0;
  virtual void StepDropped(const PendingRequest& r) = 0;
  // What the worker does with a connection (see Worker).
  virtual void Close(Connection& c) = 0;
  virtual void Retire(Connection& c) = 0;
  virtual void ConnectForNext(Connection& c) = 0;
  virtual bool Queued(const Connection& c) const = 0;

 protected:
  ~FlowHost() = default;
};

class FlowUsers {
 public:
  // `connections`: the worker's, plan.lanes per user; `clock`: its clock after its last wait;
  // `draining`: set when the run stops starting requests; `rows`: --data's reader, if any.
  FlowUsers(const RunPlan& plan, std::span<const proto::RequestTemplate> templates,
            std::span<Connection> connections, FlowHost* host, WorkerStats* stats,
            net::TimerWheel* timers, const int64_t* clock, const bool* draining,
            std::optional<DataFile::Reader>* rows);
  FlowUsers(const FlowUsers&) = delete;
  FlowUsers& operator=(const FlowUsers&) = delete;

  std::span<FlowUser> users() { return users_; }
  FlowUser& UserOf(const Connection& c) { return users_[UserIndex(c)]; }
  const FlowUser& UserOf(const Connection& c) const { return users_[UserIndex(c)]; }
  // A user's connection beyond its first (several origins only): it takes no iteration, is
  // never listed and lasts as long as the first.
  bool Secondary(const Connection& c) const { return c.slot >= users_.size(); }
  // Its user is mid-iteration or thinking: not listed for the schedule.
  bool Resting(const Connection& c) const {
    return UserOf(c).in_iteration() || UserOf(c).thinking();
  }
  // Whether `c` may still take a step, now or later: its user's, or the schedule's.
  bool MoreFor(const Connection& c) const;

  // The next request `c` sends: its user's step waiting to go again, its current step if it
  // goes to c's origin, or (c its user's first) the first step of a new iteration.
  bool NextStep(Connection& c, PendingRequest* request);
  // The step whose request ended `outcome` on `c` (a complete response with `status` is judged
  // by its checks; `error` becomes the missed one's CheckFailure).
  Outcome Judge(Connection& c, Outcome outcome, int status, int grpc_status, int* error);
  // After the step's outcome: the iteration goes on, thinks, completes or is aborted.
  void AfterStep(Connection& c, const PendingRequest& r, Outcome outcome);
  // The server refused `r` unprocessed: its user sends it again, not whichever user is next.
  void Retry(Connection& c, const PendingRequest& r);

  // `c` closed: true when its user thinks on it (it connects again when the think ends).
  bool ThinksOnClose(Connection& c);
  // `c`'s timer fired: true when it was its user's think (the user goes on).
  bool EndThink(Connection& c);
  // No step starts any more: a user waiting out a think ends there (its iteration is cut).
  void CutThinking();
  // The open model's end: `c`'s user, idle or thinking, takes no more iterations. False when
  // it is mid-iteration.
  bool Idle(Connection& c);
  // `c`, a user's first connection, retires: its other connections without a step too.
  void RetireOthers(Connection& c);
  // The run was aborted: a step waiting to go again ends as the requests in flight do.
  void DropRetries();
  // The users woken inside a driver's work go on (QueueWake).
  void FlushWakes();

 private:
  uint32_t UserIndex(const Connection& c) const {
    return c.slot < users_.size() ? c.slot : c.slot % static_cast<uint32_t>(users_.size());
  }
  // Whether `c` is where step `target` goes (its origin's connection).
  bool OnLane(const Connection& c, uint32_t target) const {
    return !several_origins_ || plan_.targets[target].origin == c.origin;
  }
  // User `user`'s connection to `origin`: bound already, or the one it used least recently,
  // bound now (closed first when open).
  Connection& LaneFor(uint32_t user, uint16_t origin);
  void QueueWake(uint32_t user);
  // User `user` goes on: on the connection its held or current step goes to, or its first for
  // the next iteration (or, the run ending, to retire).
  void WakeUser(uint32_t user);
  void Wake(Connection& c);  // An idle connection connects, an open one refills.
  void Resume(Connection& c);

  const RunPlan& plan_;
  const FlowProgram* flow_;
  std::span<Connection> connections_;
  FlowHost* host_;
  WorkerStats* stats_;
  net::TimerWheel* timers_;
  const int64_t* clock_;
  const bool* draining_;
  std::optional<DataFile::Reader>* rows_;
  std::unique_ptr<PatternScratch> patterns_;  // Where regexes search, shared by the users.
  std::vector<FlowUser> users_;
  // By user: a started step waiting for its user's connection (in_use: one waits): one the
  // server refused unprocessed, sent again by its user, not by whichever connection comes
  // first; or an iteration's first step, begun on the user's first connection and bound for
  // another origin's.
  std::vector<PendingRequest> held_;
  bool several_origins_ = false;
  std::vector<int64_t> lane_used_ns_;   // By slot: when it last took a step.
  std::vector<uint32_t> queued_wakes_;  // Users to wake once the drain is over.
  std::vector<uint8_t> wake_queued_;    // By user: it is in queued_wakes_.
};

}  // namespace uringload::core
