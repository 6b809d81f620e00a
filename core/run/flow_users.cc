#include "core/run/flow_users.h"

#include <algorithm>
#include <cstdint>

#include "net/base/check.h"

namespace uringload::core {

FlowUsers::FlowUsers(const RunPlan& plan, std::span<const proto::RequestTemplate> templates,
                     std::span<Connection> connections, FlowHost* host, WorkerStats* stats,
                     net::TimerWheel* timers, const int64_t* clock, const bool* draining,
                     std::optional<DataFile::Reader>* rows)
    : plan_(plan),
      flow_(plan.flow.get()),
      connections_(connections),
      host_(host),
      stats_(stats),
      timers_(timers),
      clock_(clock),
      draining_(draining),
      rows_(rows) {
  std::span<const size_t> data_sizes;
  if (plan.data != nullptr) data_sizes = plan.data->max_sizes();
  size_t path_bytes = 0;
  for (const proto::RequestTemplate& t : templates) {
    path_bytes = std::max(path_bytes, t.path().max_size());
  }
  if (flow_->any_regex || flow_->any_header_pattern) patterns_ = std::make_unique<PatternScratch>();
  uint32_t users = static_cast<uint32_t>(connections.size()) / plan.lanes;
  users_.reserve(users);
  held_.resize(users);
  for (size_t i = 0; i < users; ++i) {
    users_.emplace_back(flow_, data_sizes, path_bytes, clock_, patterns_.get());
  }
  several_origins_ = plan.origins.size() > 1;
  if (several_origins_) {
    lane_used_ns_.assign(connections.size(), -1);
    wake_queued_.assign(users, 0);
    queued_wakes_.reserve(users);
  }
}

bool FlowUsers::MoreFor(const Connection& c) const {
  // A user's other connections last as long as its first.
  if (Secondary(c) && connections_[UserIndex(c)].state == ConnState::kDone) return false;
  return (UserOf(c).in_iteration() && !*draining_) || host_->MoreToCome();
}

bool FlowUsers::NextStep(Connection& c, PendingRequest* request) {
  uint32_t u = UserIndex(c);
  FlowUser& user = users_[u];
  if (user.thinking()) return false;
  if (held_[u].in_use) {  // Already started, once.
    if (!OnLane(c, held_[u].target)) return false;
    *request = held_[u];
    held_[u].in_use = false;
    request->in_use = false;
    request->sent_ns = 0;
    request->waited = true;
    if (several_origins_) lane_used_ns_[c.slot] = *clock_;
    return true;
  }
  if (user.in_iteration()) {
    if (*draining_) return false;               // The run's end cuts the iteration short.
    if (!OnLane(c, user.step())) return false;  // Another origin's connection sends it.
    if (several_origins_) lane_used_ns_[c.slot] = *clock_;
    *request = {.index = user.iteration(),
                .intended_ns = *clock_,  // Due as soon as the last step ended.
                .sent_ns = 0,
                .target = user.step(),
                .warmup = user.warmup()};
    host_->StepStarted(*request);
    return true;
  }
  if (Secondary(c) || !host_->NextScheduled(request)) return false;
  std::span<const std::string_view> row;
  if (rows_->has_value()) row = (*rows_)->Row(plan_.RowOf(request->index));
  user.Begin(request->index, flow_->FlowOf(request->index, plan_.seed), row, request->warmup,
             *clock_, plan_.seed);
  request->target = user.step();
  if (!request->warmup) stats_->IterationStarted();
  if (!OnLane(c, request->target)) {  // Its first step goes to another origin: it waits there.
    held_[u] = *request;
    held_[u].in_use = true;
    held_[u].waited = true;
    QueueWake(u);
    return false;
  }
  if (several_origins_) lane_used_ns_[c.slot] = *clock_;
  return true;
}

Outcome FlowUsers::Judge(Connection& c, Outcome outcome, int status, int grpc_status, int* error) {
  if (outcome != Outcome::kOk) return outcome;
  std::optional<CheckFailure> missed = UserOf(c).Judge(status, grpc_status, *clock_);
  if (!missed.has_value()) return Outcome::kOk;
  *error = static_cast<int>(*missed);
  return Outcome::kCheckFailed;
}

void FlowUsers::AfterStep(Connection& c, const PendingRequest& r, Outcome outcome) {
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
  if (user.Advance(*clock_) == FlowUser::Next::kCompleted && !r.warmup) {
    stats_->IterationCompleted(*clock_ - user.iteration_started_ns());
  }
  // A think after the last step waits for an iteration that no longer comes: none.
  if (user.thinking() && !user.in_iteration() && !host_->MoreToCome()) user.Cut();
  if (user.thinking()) {
    // On the user's first connection (free: its user has no step in flight).
    timers_->Schedule(&connections_[u].timer, user.think_until_ns());
  } else if (several_origins_ &&
             (Secondary(c) || (user.in_iteration() && !OnLane(c, user.step())))) {
    QueueWake(u);  // Its next step, or next iteration, goes on another connection.
  }
}

void FlowUsers::Retry(Connection& c, const PendingRequest& r) {
  held_[UserIndex(c)] = r;
  held_[UserIndex(c)].in_use = true;
}

Connection& FlowUsers::LaneFor(uint32_t user, uint16_t origin) {
  const auto users = static_cast<uint32_t>(users_.size());
  Connection* oldest = nullptr;
  for (uint32_t lane = 0; lane < plan_.lanes; ++lane) {
    Connection& c = connections_[user + lane * users];
    if (c.origin == origin) return c;
    if (c.count > 0 || c.state == ConnState::kDone || c.state == ConnState::kConnecting ||
        host_->Queued(c)) {
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
  lane_used_ns_[oldest->slot] = *clock_;
  // Open to another origin: it closes, and connects to this one (OnClosed, ConnectForNext).
  if (oldest->state == ConnState::kActive) host_->Close(*oldest);
  return *oldest;
}

void FlowUsers::QueueWake(uint32_t u) {
  if (!several_origins_ || wake_queued_[u] != 0) return;  // One connection goes on by itself.
  wake_queued_[u] = 1;
  queued_wakes_.push_back(u);
}

void FlowUsers::FlushWakes() {
  for (size_t i = 0; i < queued_wakes_.size(); ++i) {  // A woken user may queue itself again.
    uint32_t u = queued_wakes_[i];
    wake_queued_[u] = 0;
    WakeUser(u);
  }
  queued_wakes_.clear();
}

void FlowUsers::WakeUser(uint32_t u) {
  FlowUser& user = users_[u];
  if (user.thinking()) return;  // The think's end wakes it.
  if (held_[u].in_use) {
    Wake(LaneFor(u, plan_.targets[held_[u].target].origin));
  } else if (user.in_iteration() && !*draining_) {
    Wake(LaneFor(u, plan_.targets[user.step()].origin));
  } else {
    // Its first connection takes the next iteration, or (the run ending) retires them all.
    Wake(connections_[u]);
  }
}

void FlowUsers::Wake(Connection& c) {
  if (c.count > 0) return;  // It carries the step already.
  if (c.state == ConnState::kActive) {
    c.driver->Refill(c);
  } else if (c.state == ConnState::kIdle && !host_->Queued(c)) {
    host_->ConnectForNext(c);
  }  // Closing: OnClosed goes on.
}

bool FlowUsers::ThinksOnClose(Connection& c) {
  if (Secondary(c) || !UserOf(c).thinking()) return false;
  timers_->Schedule(&c.timer, UserOf(c).think_until_ns());  // The close cancelled it.
  return true;
}

bool FlowUsers::EndThink(Connection& c) {
  if (c.count > 0 || Secondary(c) || !UserOf(c).thinking()) return false;
  Resume(c);
  return true;
}

// The think ended (on the user's first connection): its next step (or next iteration) goes
// out, on its connection or on a new one if the server closed it meanwhile.
void FlowUsers::Resume(Connection& c) {
  uint32_t u = UserIndex(c);
  users_[u].EndThink();
  if (several_origins_) {
    WakeUser(u);
  } else {
    Wake(c);
  }
}

void FlowUsers::CutThinking() {
  for (uint32_t u = 0; u < users_.size(); ++u) {
    Connection& c = connections_[u];  // Its first holds the think and retires the others.
    if (!users_[u].thinking() || c.count > 0) continue;
    users_[u].Cut();
    timers_->Cancel(&c.timer);
    host_->Retire(c);
  }
}

bool FlowUsers::Idle(Connection& c) {
  FlowUser& user = UserOf(c);
  if (user.in_iteration()) return false;
  if (user.thinking()) {  // No iteration will follow its think.
    user.Cut();
    timers_->Cancel(&connections_[UserIndex(c)].timer);
  }
  return true;
}

void FlowUsers::RetireOthers(Connection& c) {
  if (plan_.lanes == 1 || Secondary(c)) return;
  for (uint32_t lane = 1; lane < plan_.lanes; ++lane) {
    Connection& other = connections_[c.slot + lane * users_.size()];
    if (other.count == 0 && !host_->Queued(other)) host_->Retire(other);
  }
}

// A step waiting to go out again when the run is aborted ends as the requests in flight do,
// and its iteration there.
void FlowUsers::DropRetries() {
  for (uint32_t u = 0; u < users_.size(); ++u) {
    if (!held_[u].in_use) continue;
    PendingRequest r = held_[u];
    held_[u].in_use = false;
    host_->StepDropped(r);
    AfterStep(connections_[u], r, Outcome::kTimeout);
  }
}

}  // namespace uringload::core
