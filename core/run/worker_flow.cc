// How a worker runs flows (--flow): each connection slot is a virtual user (FlowUser) that
// sends its iteration's steps one after another on its connection. The schedule hands out
// iterations, not requests: a user takes one when it has none (closed model at once, open
// model when one is due), then its steps follow its answers, pausing for thinks on the
// connection's timer. A step that fails or misses a check aborts the iteration there.
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
  users_.reserve(connections_.size());
  step_retries_.resize(connections_.size());
  for (size_t i = 0; i < connections_.size(); ++i) {
    users_.emplace_back(flow_, data_sizes, path_bytes, &completions_at_ns_, patterns_.get());
  }
}

bool Worker::Resting(const Connection& c) const {
  return flow_ != nullptr && (users_[c.slot].in_iteration() || users_[c.slot].thinking());
}

bool Worker::NextStep(Connection& c, PendingRequest* request) {
  FlowUser& user = users_[c.slot];
  if (user.thinking()) return false;
  if (!step_retries_.empty() && step_retries_[c.slot].in_use) {  // Already started, once.
    *request = step_retries_[c.slot];
    step_retries_[c.slot].in_use = false;
    request->in_use = false;
    request->sent_ns = 0;
    request->waited = true;
    return true;
  }
  if (user.in_iteration()) {
    if (draining_) return false;  // The run's end cuts the iteration short.
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
  if (!NextScheduled(request)) return false;
  std::span<const std::string_view> row;
  if (rows_.has_value()) row = rows_->Row(config_.plan->RowOf(request->index));
  user.Begin(request->index, flow_->FlowOf(request->index, config_.plan->seed), row,
             request->warmup, completions_at_ns_, config_.plan->seed);
  request->target = user.step();
  if (!request->warmup) stats_->IterationStarted();
  return true;
}

Outcome Worker::JudgeStep(Connection& c, Outcome outcome, int status, int grpc_status, int* error) {
  if (outcome != Outcome::kOk) return outcome;
  std::optional<CheckFailure> missed =
      users_[c.slot].Judge(status, grpc_status, completions_at_ns_);
  if (!missed.has_value()) return Outcome::kOk;
  *error = static_cast<int>(*missed);
  return Outcome::kCheckFailed;
}

void Worker::AfterStep(Connection& c, const PendingRequest& r, Outcome outcome) {
  FlowUser& user = users_[c.slot];
  URINGLOAD_CHECK(user.in_iteration() && user.step() == r.target, "slot %u step %u target %u",
                  c.slot, user.step(), r.target);
  if (outcome != Outcome::kOk) {
    user.Abort();
    if (!r.warmup) stats_->IterationAborted(r.target);
    return;
  }
  if (user.Advance(completions_at_ns_) == FlowUser::Next::kCompleted && !r.warmup) {
    stats_->IterationCompleted(completions_at_ns_ - user.iteration_started_ns());
  }
  // A think after the last step waits for an iteration that no longer comes: none.
  if (user.thinking() && !user.in_iteration() && !MoreToCome()) user.Cut();
  if (user.thinking()) ScheduleThink(c);
}

void Worker::ScheduleThink(Connection& c) {
  loop_->timers().Schedule(&c.timer, users_[c.slot].think_until_ns());
}

// The think ended: the user's next step (or next iteration) goes out, on its connection or
// on a new one if the server closed it meanwhile.
void Worker::ResumeUser(Connection& c) {
  users_[c.slot].EndThink();
  if (c.state == ConnState::kActive) {
    c.driver->Refill(c);
    return;
  }
  if (c.state == ConnState::kIdle) ConnectForNext(c);  // Closing: OnClosed goes on.
}

// No step starts any more: a user waiting out a think ends there (its iteration is cut).
void Worker::CutThinkingUsers() {
  for (Connection& c : connections_) {
    FlowUser& user = users_[c.slot];
    if (!user.thinking() || c.count > 0) continue;
    user.Cut();
    loop_->timers().Cancel(&c.timer);
    Retire(c);
  }
}

// A step waiting to go out again when the run is aborted ends as the requests in flight do,
// and its iteration there.
void Worker::AbortStepRetries() {
  for (Connection& c : connections_) {
    if (!step_retries_[c.slot].in_use) continue;
    PendingRequest r = step_retries_[c.slot];
    step_retries_[c.slot].in_use = false;
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
