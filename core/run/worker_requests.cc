// How a worker's requests come in and how they go out. A connection holds up to
// -p requests in flight (PendingRequest ring), rendered back-to-back into its buffer and sent
// with one send at a time; each is stamped by the submit that carries it. In the open model
// connections that can take a request wait on a list until the schedule says one is due.
#include <algorithm>

#include "core/run/worker.h"
#include "net/base/check.h"

namespace uringload::core {

// Whether any request may still start here: one handed back for a retry, or the schedule's.
bool Worker::MoreToCome() const { return !retry_.empty() || (!draining_ && !pacer_.exhausted()); }

bool Worker::MoreFor(const Connection& c) const {
  return (flow_ != nullptr && users_[c.slot].in_iteration() && !draining_) || MoreToCome();
}

bool Worker::NextRequest(Connection& c, PendingRequest* request) {
  return flow_ != nullptr ? NextStep(c, request) : NextScheduled(request);
}

// The next request to start now, if any: first those sent behind a response that closed its
// connection (they were never answered and already count as started), then the schedule's.
bool Worker::NextScheduled(PendingRequest* request) {
  if (!retry_.empty()) {
    *request = retry_.back();
    retry_.pop_back();
    request->sent_ns = 0;
    request->waited = true;
    return true;
  }
  // Never one due at or after -d's end, however late this loop got there.
  int64_t now = completions_at_ns_;
  if (config_.deadline_ns != 0) now = std::min(now, config_.deadline_ns - 1);
  RequestPacer::Due due;
  if (draining_ || !pacer_.Take(now, &due)) return false;
  int64_t started_at = pacer_.open() ? due.intended_ns : completions_at_ns_;
  // The fleet's index (a shard's requests are a part of one run): what {i} renders and what
  // picks the target, so S shards send exactly what one process would.
  uint64_t index = config_.plan->GlobalIndex(due.index);
  *request = {.index = index,
              .intended_ns = due.intended_ns,
              .sent_ns = 0,
              .target = static_cast<uint32_t>(config_.plan->TargetOf(index)),
              .warmup = started_at - origin_ns_ < warmup_ns_,
              .waited = pacer_.open() && due.intended_ns <= late_since_ns_};
  ++in_flight_;
  if (request->warmup) {
    stats_->WarmupStarted();
  } else {
    stats_->RequestStarted();
    if (request->waited) stats_->LateStart();
  }
  // Due before this worker had set up (its ring, buffers, thread start): that wait is not a
  // pace the client could not keep, so it stays out of the schedule lag.
  if (due.intended_ns < started_ns_) request->waited = true;
  return true;
}

const proto::RequestTemplate& Worker::TemplateFor(const Connection& c,
                                                  const PendingRequest& r) const {
  return config_.templates[r.target * config_.plan->addresses.size() + c.address];
}

// What `request`'s placeholders render from (a flow's user keeps its row and variables).
proto::TemplateContext Worker::ContextFor(Connection& c, const PendingRequest& request,
                                          const proto::RequestTemplate& tmpl) {
  proto::TemplateContext context{.index = request.index,
                                 .seed = config_.plan->seed,
                                 .shard = config_.plan->shard.index,
                                 .worker = config_.index};
  if (flow_ != nullptr) return users_[c.slot].Context(context, tmpl, completions_at_ns_);
  if (rows_.has_value()) context.fields = rows_->Row(config_.plan->RowOf(request.index));
  return context;
}

// Renders `request` behind what the connection has not sent yet.
void Worker::AddRequest(Connection& c, const PendingRequest& request) {
  if (IsStreams(c)) {
    AddStream(c, request);
    return;
  }
  URINGLOAD_CHECK(c.count < c.pending.size(), "slot %u count %u", c.slot, c.count);
  c.at(c.count) = request;
  ++c.count;
  const proto::RequestTemplate& tmpl = TemplateFor(c, request);
  if (c.count == 1) c.parser.Start(tmpl.is_head());
  if (c.out.empty()) {  // One static request in flight at most: sent from the template.
    c.static_out = tmpl.static_bytes().data();
    c.out_size = static_cast<uint32_t>(tmpl.static_bytes().size());
  } else {
    std::string_view bytes =
        tmpl.RenderInto(ContextFor(c, request, tmpl), c.out.subspan(c.out_size));
    c.out_size += static_cast<uint32_t>(bytes.size());
  }
}

// Takes as many requests as are due and fit (-p).
void Worker::Fill(Connection& c) {
  PendingRequest request;
  uint32_t capacity = Capacity(c);
  while (c.count < capacity && NextRequest(c, &request)) AddRequest(c, request);
}

// Sends what waits, unless a send is in flight (its completion sends the rest).
void Worker::Flush(Connection& c) {
  if (IsStreams(c)) {
    FlushStreams(c);
    return;
  }
  if (c.send_size != 0 || c.out_size == 0) return;
  c.send_size = c.out_size;
  loop_->Send(c.slot, c.out.empty() ? c.static_out : c.out.data(), c.send_size);
  if (c.stamped == c.submitted) unstamped_sends_.push_back(c.slot);  // Else already queued.
  c.submitted = c.count;
}

// After responses: more requests on the connection, or it waits (open model), or it closes.
// Pipelined, closed model: only once half of -p has been answered, so requests go in bursts
// the server can answer with one send (14% more requests against `serve`: docs/performance.md,
// "Measurements behind the code").
void Worker::Refill(Connection& c) {
  if (IsStreams(c)) {
    RefillStreams(c);
    return;
  }
  if (!pacer_.open() && c.count > 0 && 2 * c.count > c.pending.size()) return;
  Fill(c);
  if (c.count == 0 && !MoreFor(c)) {
    Close(c);
    return;
  }
  if (c.count < c.pending.size() && pacer_.open()) List(c);
  Flush(c);
}

void Worker::Record(const PendingRequest& r, Outcome outcome, int error, int status,
                    bool body_found, int grpc_status, uint64_t grpc_messages) {
  --in_flight_;
  if (outcome == Outcome::kOk) {
    batch_.CountLatency(completions_at_ns_ - r.sent_ns);
    if (std::optional<CheckFailure> missed = config_.plan->checks.Judge(status, body_found)) {
      outcome = Outcome::kCheckFailed;
      error = static_cast<int>(*missed);
    }
  }
  if (r.warmup) {
    stats_->WarmupCompleted();
  } else if (outcome == Outcome::kOk) {
    uint64_t uncorrected = completions_at_ns_ - r.sent_ns;
    uint64_t latency = pacer_.open() ? completions_at_ns_ - r.intended_ns : uncorrected;
    stats_->RequestSucceeded(status, latency, uncorrected, r.target);
    if (grpc_status >= 0) stats_->GrpcCallEnded(grpc_status, grpc_messages);
  } else {
    stats_->RequestFailed(outcome, error, r.target, outcome == Outcome::kCheckFailed ? status : 0);
  }
}

// Ends the oldest request in flight on `c` (over HTTP/2, any one of its streams).
void Worker::FinishRequest(Connection& c, Outcome outcome, int error) {
  URINGLOAD_CHECK(c.count > 0 && in_flight_ > 0, "slot %u state %d count %u in flight %u", c.slot,
                  static_cast<int>(c.state), c.count, in_flight_);
  if (IsStreams(c)) {
    uint32_t k = 0;
    while (!c.pending[k].in_use) ++k;  // count > 0: one is in use.
    FinishStream(c, k, outcome, error, 0);
    return;
  }
  PendingRequest r = c.oldest();
  if (flow_ != nullptr) outcome = JudgeStep(c, outcome, c.parser.status_code(), -1, &error);
  Record(r, outcome, error, c.parser.status_code(), c.parser.body_found());
  c.PopOldest();
  if (c.submitted > 0) --c.submitted;
  if (c.stamped > 0) --c.stamped;
  loop_->timers().Cancel(&c.timer);
  if (flow_ != nullptr) AfterStep(c, r, outcome);
  if (c.count == 0) return;
  c.parser.Start(TemplateFor(c, c.oldest()).is_head());
  if (c.stamped > 0) ScheduleTimeout(c);
}

// The server ended the connection after a complete response: the requests sent behind it were
// never answered, so they go out again on another connection (they stay started, once; each is
// counted retried, as every request sent again is).
void Worker::Requeue(Connection& c) {
  while (c.count > 0) {
    retry_.push_back(c.oldest());
    c.PopOldest();
    stats_->RequestRetried();
  }
  c.submitted = c.stamped = 0;
}

// The timeout runs from the send of the oldest request in flight.
void Worker::ScheduleTimeout(Connection& c) {
  if (c.count > 0) loop_->timers().Schedule(&c.timer, c.oldest().sent_ns + timeout_ns_);
}

void Worker::List(Connection& c) {
  if (c.listed || Resting(c)) return;
  c.listed = true;
  listed_.push_back(c.slot);
}

// Open model: each due request goes to a listed connection (open ones get it at once, closed
// ones connect for it). When none is left, what is due waits: those requests start late.
void Worker::StartDue(int64_t now) {
  while (MoreToCome() && (!retry_.empty() || pacer_.next_due_ns() <= now)) {
    if (listed_.empty()) {
      late_since_ns_ = now;
      return;
    }
    Connection& c = connections_[listed_.back()];
    listed_.pop_back();
    c.listed = false;
    if (c.state == ConnState::kActive && c.count < Capacity(c)) {
      Fill(c);
      if (c.count < Capacity(c)) List(c);
      Flush(c);
    } else if (c.state == ConnState::kIdle && c.count == 0) {
      PendingRequest request;
      if (!NextRequest(c, &request)) return;
      request.waited = true;  // Sent once connected.
      AddRequest(c, request);
      if (!Queued(c)) RequestConnect(c);  // Else --preconnect queued it: it connects soon.
    }
  }
}

// Open model, no request will come any more: connections without one close now.
void Worker::RetireIdle() {
  retired_ = true;
  for (Connection& c : connections_) {
    if (c.count > 0 || (flow_ != nullptr && users_[c.slot].in_iteration())) continue;
    if (flow_ != nullptr && users_[c.slot].thinking()) {  // No iteration will follow its think.
      users_[c.slot].Cut();
      loop_->timers().Cancel(&c.timer);
    }
    Retire(c);
  }
  listed_.clear();
}

}  // namespace uringload::core
