// How a worker's requests come in and how they end: the schedule's (or a flow's) next request,
// handed to the connection's driver, which reports its end back to be judged and recorded.
// Each is stamped by the submit that carries it. In the open model connections that can take
// a request wait on a list until the schedule says one is due.
#include <algorithm>

#include "core/run/worker.h"
#include "net/base/check.h"

namespace uringload::core {

// Whether any request may still start here: one handed back for a retry, or the schedule's.
bool Worker::MoreToCome() const { return !retry_.empty() || (!draining_ && !pacer_.exhausted()); }

bool Worker::MoreFor(const Connection& c) const {
  return flows_.has_value() ? flows_->MoreFor(c) : MoreToCome();
}

bool Worker::NextRequest(Connection& c, PendingRequest* request) {
  return flows_.has_value() ? flows_->NextStep(c, request) : NextScheduled(request);
}

void Worker::StepStarted(const PendingRequest& r) {
  ++in_flight_;
  if (r.warmup) {
    stats_->WarmupStarted();
  } else {
    stats_->RequestStarted();
  }
}

void Worker::StepDropped(const PendingRequest& r) {
  --in_flight_;
  if (r.warmup) {
    stats_->WarmupCompleted();
  } else {
    stats_->RequestFailed(Outcome::kTimeout, ECANCELED, r.target);
  }
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

// What `request`'s placeholders render from (a flow's user keeps its row and variables).
proto::TemplateContext Worker::ContextFor(Connection& c, const PendingRequest& request,
                                          const proto::RequestTemplate& tmpl) {
  proto::TemplateContext context{.index = request.index,
                                 .seed = config_.plan->seed,
                                 .shard = config_.plan->shard.index,
                                 .worker = config_.index};
  if (flows_.has_value()) return flows_->UserOf(c).Context(context, tmpl, completions_at_ns_);
  if (rows_.has_value()) context.fields = rows_->Row(config_.plan->RowOf(request.index));
  return context;
}

void Worker::AddRequest(Connection& c, const PendingRequest& request) {
  if (c.state == ConnState::kActive) {
    c.driver->Add(c, request);
    return;
  }
  URINGLOAD_CHECK(c.count < c.pending.size(), "slot %u count %u", c.slot, c.count);
  c.at(c.count) = request;
  ++c.count;
}

void Worker::Fill(Connection& c) {
  PendingRequest request;
  uint32_t capacity = c.driver->Capacity(c);
  while (c.count < capacity && NextRequest(c, &request)) c.driver->Add(c, request);
}

void Worker::Record(const PendingRequest& r, Outcome outcome, int error,
                    const ResponseFacts& response) {
  --in_flight_;
  if (outcome == Outcome::kOk) {
    batch_.CountLatency(completions_at_ns_ - r.sent_ns);
    if (std::optional<CheckFailure> missed =
            config_.plan->checks.Judge(response.status, response.body_found, response.events)) {
      outcome = Outcome::kCheckFailed;
      error = static_cast<int>(*missed);
    }
  }
  if (r.warmup) {
    stats_->WarmupCompleted();
  } else if (outcome == Outcome::kOk) {
    uint64_t uncorrected = completions_at_ns_ - r.sent_ns;
    uint64_t latency = pacer_.open() ? completions_at_ns_ - r.intended_ns : uncorrected;
    stats_->RequestSucceeded(response.status, latency, uncorrected, r.target);
    // Every driver marks a response's head as it comes; its end bounds it in any case.
    int64_t start = pacer_.open() ? r.intended_ns : r.sent_ns;
    int64_t head = r.head_ns != 0 ? r.head_ns : completions_at_ns_;
    stats_->ResponseArrived(
        head - start, r.body_ns != 0 ? std::optional<uint64_t>(r.body_ns - start) : std::nullopt);
    if (response.grpc_status >= 0) {
      stats_->GrpcCallEnded(response.grpc_status, response.grpc_messages);
    }
  } else {
    stats_->RequestFailed(outcome, error, r.target,
                          outcome == Outcome::kCheckFailed ? response.status : 0);
  }
}

Outcome Worker::RecordEnd(Connection& c, const PendingRequest& r, Outcome outcome, int error,
                          const ResponseFacts& response) {
  URINGLOAD_CHECK(in_flight_ > 0, "slot %u state %d count %u: no request in flight", c.slot,
                  static_cast<int>(c.state), c.count);
  if (flows_.has_value()) {
    outcome = flows_->Judge(c, outcome, response.status, response.grpc_status, &error);
  }
  Record(r, outcome, error, response);
  return outcome;
}

void Worker::AfterEnd(Connection& c, const PendingRequest& r, Outcome outcome) {
  if (flows_.has_value()) flows_->AfterStep(c, r, outcome);
}

// A flow's step goes again by its user; any other request by whichever connection is next.
void Worker::Retry(Connection& c, const PendingRequest& r) {
  if (flows_.has_value()) {
    flows_->Retry(c, r);
  } else {
    retry_.push_back(r);
  }
  stats_->RequestRetried();
}

void Worker::List(Connection& c) {
  // A flow's user is listed on its first connection, when between iterations.
  if (c.listed || (flows_.has_value() && (flows_->Resting(c) || flows_->Secondary(c)))) return;
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
    if (c.state == ConnState::kActive && c.count < c.driver->Capacity(c)) {
      Fill(c);
      if (c.count < c.driver->Capacity(c)) List(c);
      c.driver->Flush(c);
    } else if (c.state == ConnState::kIdle && c.count == 0) {
      PendingRequest request;
      if (!NextRequest(c, &request)) {
        if (flows_.has_value() && flows_->UserOf(c).in_iteration())
          continue;  // Its first step went on.
        return;
      }
      request.waited = true;  // Sent once connected.
      AddRequest(c, request);
      if (!Queued(c)) opener_->Request(c);  // Else --preconnect queued it: it connects soon.
    }
  }
}

// Open model, no request will come any more: connections without one close now.
void Worker::RetireIdle() {
  retired_ = true;
  for (Connection& c : connections_) {
    if (c.count > 0 || (flows_.has_value() && !flows_->Idle(c))) continue;
    Retire(c);
  }
  listed_.clear();
}

}  // namespace uringload::core
