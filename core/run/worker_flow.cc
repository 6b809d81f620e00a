// How a worker runs flows (--flow): each virtual user (FlowUser) sends its iteration's steps
// one after another. The schedule hands out iterations, not requests: a user takes one on its
// first connection when it has none (closed model at once, open model when one is due), then
// its steps follow its answers, pausing for thinks on that connection's timer. A step that
// fails or misses a check aborts the iteration there. Over several origins, as a browser, a
// user holds a connection per origin it uses (plan.lanes of them, the least recently used
// bound anew past that): each step goes on its origin's, and the user's next move waits for
// the end of the drain that ended its last step (WakeUser), so no driver is re-entered.
#include <algorithm>

#include "core/run/worker.h"
#include "net/base/check.h"

namespace uringload::core {

// A user per connection slot, reading its answers through the slot's driver.
void Worker::SetupUsers() {
  const RunPlan& plan = *config_.plan;
  flow_ = plan.flow.get();
  std::span<const size_t> data_sizes;
  if (plan.data != nullptr) data_sizes = plan.data->max_sizes();
  size_t path_bytes = 0;
  for (const proto::RequestTemplate& t : config_.templates) {
    path_bytes = std::max(path_bytes, t.path().max_size());
  }
  if (flow_->any_regex || flow_->any_header_pattern) patterns_ = std::make_unique<PatternScratch>();
  uint32_t users = config_.connections;
  users_.reserve(users);
  step_retries_.resize(users);
  for (size_t i = 0; i < users; ++i) {
    users_.emplace_back(flow_, data_sizes, path_bytes, &completions_at_ns_, patterns_.get());
  }
  several_origins_ = plan.origins.size() > 1;
  if (several_origins_) {
    lane_used_ns_.assign(connections_.size(), -1);
    wake_queued_.assign(users, 0);
    queued_wakes_.reserve(users);
  }
}

bool Worker::Resting(const Connection& c) const {
  return flow_ != nullptr && (UserOf(c).in_iteration() || UserOf(c).thinking());
}

bool Worker::NextStep(Connection& c, PendingRequest* request) {
  uint32_t u = UserIndex(c);
  FlowUser& user = users_[u];
  if (user.thinking()) return false;
  if (step_retries_[u].in_use) {  // Already started, once.
    if (!OnLane(c, step_retries_[u].target)) return false;
    *request = step_retries_[u];
    step_retries_[u].in_use = false;
    request->in_use = false;
    request->sent_ns = 0;
    request->waited = true;
    if (several_origins_) lane_used_ns_[c.slot] = completions_at_ns_;
    return true;
  }
  if (user.in_iteration()) {
    if (draining_) return false;                // The run's end cuts the iteration short.
    if (!OnLane(c, user.step())) return false;  // Another origin's connection sends it.
    if (several_origins_) lane_used_ns_[c.slot] = completions_at_ns_;
    *request = {.index = user.iteration(),
                .intended_ns = completions_at_ns_,  // Due as soon as the last step ended.
                .sent_ns = 0,
                .target = user.step(),
                .warmup = user.warmup()};
    ++in_flight_;
    if (request->warmup) {
      stats_->WarmupStarted();
    } else {
      stats_->RequestStarted();
    }
    return true;
  }
  if (Secondary(c) || !NextScheduled(request)) return false;
  std::span<const std::string_view> row;
  if (rows_.has_value()) row = rows_->Row(config_.plan->RowOf(request->index));
  user.Begin(request->index, flow_->FlowOf(request->index, config_.plan->seed), row,
             request->warmup, completions_at_ns_, config_.plan->seed);
  request->target = user.step();
  if (!request->warmup) stats_->IterationStarted();
  if (!OnLane(c, request->target)) {  // Its first step goes to another origin: it waits there.
    step_retries_[u] = *request;
    step_retries_[u].in_use = true;
    step_retries_[u].waited = true;
    QueueWake(u);
    return false;
  }
  if (several_origins_) lane_used_ns_[c.slot] = completions_at_ns_;
  return true;
}

Connection& Worker::LaneFor(uint32_t user, uint16_t origin) {
  const auto users = static_cast<uint32_t>(users_.size());
  Connection* oldest = nullptr;
  for (uint32_t lane = 0; lane < config_.plan->lanes; ++lane) {
    Connection& c = connections_[user + lane * users];
    if (c.origin == origin) return c;
    if (c.count > 0 || c.state == ConnState::kDone || c.state == ConnState::kConnecting ||
        Queued(c)) {
      continue;
    }
    // One not bound yet first, then the one used least recently.
    auto rank = [&](const Connection& l) {
      return l.origin == kNoOrigin ? INT64_MIN : lane_used_ns_[l.slot];
    };
    if (oldest == nullptr || rank(c) < rank(*oldest)) oldest = &c;
  }
  URINGLOAD_CHECK(oldest != nullptr, "user %u: no connection free for origin %u", user, origin);
  oldest->origin = origin;
  lane_used_ns_[oldest->slot] = completions_at_ns_;
  // Open to another origin: it closes, and connects to this one (OnClosed, ConnectForNext).
  if (oldest->state == ConnState::kActive) Close(*oldest);
  return *oldest;
}

void Worker::QueueWake(uint32_t u) {
  if (!several_origins_ || wake_queued_[u] != 0) return;  // One connection goes on by itself.
  wake_queued_[u] = 1;
  queued_wakes_.push_back(u);
}

void Worker::FlushWakes() {
  for (size_t i = 0; i < queued_wakes_.size(); ++i) {  // A woken user may queue itself again.
    uint32_t u = queued_wakes_[i];
    wake_queued_[u] = 0;
    WakeUser(u);
  }
  queued_wakes_.clear();
}

void Worker::WakeUser(uint32_t u) {
  FlowUser& user = users_[u];
  if (user.thinking()) return;  // The think's end wakes it.
  const std::vector<TargetRequest>& targets = config_.plan->targets;
  if (step_retries_[u].in_use) {
    Wake(LaneFor(u, targets[step_retries_[u].target].origin));
  } else if (user.in_iteration() && !draining_) {
    Wake(LaneFor(u, targets[user.step()].origin));
  } else {
    // Its first connection takes the next iteration, or (the run ending) retires them all.
    Wake(connections_[u]);
  }
}

void Worker::Wake(Connection& c) {
  if (c.count > 0) return;  // It carries the step already.
  if (c.state == ConnState::kActive) {
    c.driver->Refill(c);
  } else if (c.state == ConnState::kIdle && !Queued(c)) {
    ConnectForNext(c);
  }  // Closing: OnClosed goes on.
}

Outcome Worker::JudgeStep(Connection& c, Outcome outcome, int status, int grpc_status, int* error) {
  if (outcome != Outcome::kOk) return outcome;
  std::optional<CheckFailure> missed = UserOf(c).Judge(status, grpc_status, completions_at_ns_);
  if (!missed.has_value()) return Outcome::kOk;
  *error = static_cast<int>(*missed);
  return Outcome::kCheckFailed;
}

void Worker::AfterStep(Connection& c, const PendingRequest& r, Outcome outcome) {
  uint32_t u = UserIndex(c);
  FlowUser& user = users_[u];
  URINGLOAD_CHECK(user.in_iteration() && user.step() == r.target, "slot %u step %u target %u",
                  c.slot, user.step(), r.target);
  if (outcome != Outcome::kOk) {
    user.Abort();
    if (!r.warmup) stats_->IterationAborted(r.target);
    if (Secondary(c)) QueueWake(u);  // Its first connection takes the next iteration.
    return;
  }
  if (user.Advance(completions_at_ns_) == FlowUser::Next::kCompleted && !r.warmup) {
    stats_->IterationCompleted(completions_at_ns_ - user.iteration_started_ns());
  }
  // A think after the last step waits for an iteration that no longer comes: none.
  if (user.thinking() && !user.in_iteration() && !MoreToCome()) user.Cut();
  if (user.thinking()) {
    ScheduleThink(connections_[u]);
  } else if (several_origins_ &&
             (Secondary(c) || (user.in_iteration() && !OnLane(c, user.step())))) {
    QueueWake(u);  // Its next step, or next iteration, goes on another connection.
  }
}

// On the user's first connection (free: its user has no step in flight).
void Worker::ScheduleThink(Connection& c) {
  loop_->timers().Schedule(&c.timer, UserOf(c).think_until_ns());
}

// The think ended (on the user's first connection): its next step (or next iteration) goes
// out, on its connection or on a new one if the server closed it meanwhile.
void Worker::ResumeUser(Connection& c) {
  uint32_t u = UserIndex(c);
  users_[u].EndThink();
  if (several_origins_) {
    WakeUser(u);
    return;
  }
  if (c.state == ConnState::kActive) {
    c.driver->Refill(c);
    return;
  }
  if (c.state == ConnState::kIdle) ConnectForNext(c);  // Closing: OnClosed goes on.
}

// No step starts any more: a user waiting out a think ends there (its iteration is cut).
void Worker::CutThinkingUsers() {
  for (Connection& c : connections_) {
    if (Secondary(c)) continue;  // Its first connection holds the think and retires them.
    FlowUser& user = UserOf(c);
    if (!user.thinking() || c.count > 0) continue;
    user.Cut();
    loop_->timers().Cancel(&c.timer);
    Retire(c);
  }
}

// A step waiting to go out again when the run is aborted ends as the requests in flight do,
// and its iteration there.
void Worker::AbortStepRetries() {
  for (uint32_t u = 0; u < users_.size(); ++u) {
    if (!step_retries_[u].in_use) continue;
    Connection& c = connections_[u];
    PendingRequest r = step_retries_[u];
    step_retries_[u].in_use = false;
    --in_flight_;
    if (r.warmup) {
      stats_->WarmupCompleted();
    } else {
      stats_->RequestFailed(Outcome::kTimeout, ECANCELED, r.target);
    }
    AfterStep(c, r, Outcome::kTimeout);
  }
}

}  // namespace uringload::core
