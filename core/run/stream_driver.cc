#include "core/run/stream_driver.h"

#include "net/base/check.h"

namespace uringload::core {
namespace {

// A stream's sent_ns between the send that carries it and the submit that stamps it.
constexpr int64_t kStampDue = -1;

}  // namespace

StreamDriver::StreamDriver(DriverHost* host, const DriverEnv& env, const StreamRules& rules)
    : host_(host), env_(env), rules_(rules), received_ns_(env.connections) {}

// Opens a stream for `request` in a free entry (Capacity said there is one).
void StreamDriver::Add(Connection& c, const PendingRequest& request) {
  uint32_t k = 0;
  while (k < c.pending.size() && c.pending[k].in_use) ++k;
  URINGLOAD_CHECK(k < c.pending.size() && c.count < c.pending.size(), "slot %u count %u", c.slot,
                  c.count);
  c.pending[k] = request;
  c.pending[k].in_use = true;
  ++c.count;
  ++c.submitted;
  if (env_.streams != nullptr) env_.streams->Begin(env_.StreamEntry(c, k));
  Submit(c, k);
}

void StreamDriver::TakeWaiting(Connection& c) {
  uint16_t waiting = c.count;
  URINGLOAD_CHECK(c.head == 0, "slot %u head %u", c.slot, c.head);
  c.count = c.submitted = c.stamped = 0;
  for (uint16_t k = 0; k < waiting; ++k) {
    PendingRequest r = c.pending[k];
    Add(c, r);
  }
}

void StreamDriver::MarkSent(Connection& c) {
  if (c.submitted == 0) return;
  for (PendingRequest& r : c.pending) {
    if (r.in_use && r.sent_ns == 0) r.sent_ns = kStampDue;
  }
  c.submitted = 0;
  if (c.stamped == 0) {
    c.stamped = 1;
    env_.QueueStamp(c);
  }
}

void StreamDriver::Stamp(Connection& c, int64_t now) {
  for (PendingRequest& r : c.pending) {
    if (r.in_use && r.sent_ns == kStampDue) env_.StampRequest(r, now);
  }
  c.stamped = 0;
  if (!c.timer.scheduled()) ScheduleStreamTimeout(c);
}

// After streams ended: new ones in their place, or the connection waits (open model), or it
// closes (no request will come, or it may open no stream any more).
void StreamDriver::Refill(Connection& c) {
  uint32_t capacity = Capacity(c);
  PendingRequest request;
  while (c.count < capacity && host_->NextRequest(c, &request)) Add(c, request);
  if (c.count == 0 && (!host_->MoreFor(c) || !MayOpen(c))) {
    host_->Close(c);
    return;
  }
  if (c.count < Capacity(c) && env_.open_model) host_->List(c);
  Flush(c);
}

void StreamDriver::AfterInput(Connection& c, uint16_t open_before, uint32_t responses_before) {
  if (c.count != open_before) ScheduleStreamTimeout(c);
  if (responses_parsed_ != responses_before && !env_.plan->keep_alive && c.count == 0) {
    host_->Close(c);
    return;
  }
  Refill(c);
}

void StreamDriver::Progress(Connection& c, uint32_t tag, proto::ResponseProgress progress) {
  PendingRequest& r = c.pending[tag];
  switch (progress) {
    case proto::ResponseProgress::kHead:
      env_.HeadCame(r);
      break;
    case proto::ResponseProgress::kFirstByte:
      env_.BodyCame(r);
      break;
    case proto::ResponseProgress::kFirstMessage:  // Measured as the call's own latency.
      if (!r.warmup) {
        env_.stats->GrpcFirstMessage(*env_.now - (env_.open_model ? r.intended_ns : r.sent_ns));
      }
      break;
  }
}

void StreamDriver::Body(Connection& c, uint32_t tag, std::string_view piece) {
  env_.streams->OnBody(env_.StreamEntry(c, tag), c.pending[tag], piece);
}

void StreamDriver::EndStream(Connection& c, const proto::StreamEnd& end) {
  StreamVerdict v = JudgeStreamEnd(end, c.pending[end.tag].retries, rules_);
  if (v.response) ++responses_parsed_;
  if (v.retry) {
    RetryStream(c, end.tag);
    return;
  }
  ResponseFacts response;
  if (v.outcome == Outcome::kOk) {
    response = {
        .status = end.status,
        .body_found = end.body_found,
        .grpc_status = end.grpc ? end.grpc_status : -1,
        .grpc_messages = end.grpc_messages,
        .events = env_.streams != nullptr ? env_.streams->events(env_.StreamEntry(c, end.tag)) : 0};
  } else if (v.response) {
    response.status = end.status;
  }
  FinishStream(c, end.tag, v.outcome, v.error, response);
}

void StreamDriver::FinishStream(Connection& c, uint32_t k, Outcome outcome, int error,
                                const ResponseFacts& response) {
  PendingRequest& r = c.pending[k];
  URINGLOAD_CHECK(r.in_use && c.count > 0, "slot %u entry %u count %u", c.slot, k, c.count);
  outcome = host_->RecordEnd(c, r, outcome, error, response);
  if (env_.streams != nullptr && outcome == Outcome::kOk) {
    env_.streams->Completed(env_.StreamEntry(c, k), r);
  }
  r.in_use = false;
  --c.count;
  if (env_.flow()) host_->AfterEnd(c, r, outcome);
}

void StreamDriver::RetryStream(Connection& c, uint32_t k) {
  PendingRequest& r = c.pending[k];
  r.in_use = false;
  --c.count;
  ++r.retries;
  host_->Retry(c, r);
}

void StreamDriver::FailAll(Connection& c, Outcome outcome, int error) {
  for (uint32_t k = 0; k < c.pending.size() && c.count > 0; ++k) {
    if (c.pending[k].in_use) FinishStream(c, k, outcome, error);
  }
}

// The timeout runs from the send of the oldest stream in flight.
void StreamDriver::ScheduleStreamTimeout(Connection& c) {
  int64_t oldest = 0;
  for (const PendingRequest& r : c.pending) {
    if (r.in_use && r.sent_ns > 0 && (oldest == 0 || r.sent_ns < oldest)) oldest = r.sent_ns;
  }
  if (oldest == 0) {
    env_.loop->timers().Cancel(&c.timer);
  } else {
    env_.loop->timers().Schedule(&c.timer, oldest + env_.timeout_ns);
  }
}

// Streams past their timeout end as timeouts. When the connection received anything since the
// oldest of them was sent, it lives on without them (the server is told); otherwise it is
// dead, and it fails as an HTTP/1.1 connection does.
void StreamDriver::OnTimeout(Connection& c, int64_t now) {
  auto expired = [&](const PendingRequest& r) {
    return r.in_use && r.sent_ns > 0 && r.sent_ns + env_.timeout_ns <= now;
  };
  int64_t oldest = 0;
  for (const PendingRequest& r : c.pending) {
    if (expired(r) && (oldest == 0 || r.sent_ns < oldest)) oldest = r.sent_ns;
  }
  if (oldest == 0) {
    ScheduleStreamTimeout(c);
    return;
  }
  if (received_ns_[c.slot] <= oldest) {  // Received before that send (post-wait clock vs stamp).
    host_->Fail(c, Outcome::kTimeout, 0);
    return;
  }
  for (uint32_t k = 0; k < c.pending.size(); ++k) {
    if (expired(c.pending[k])) {
      Cancel(c, k);
      FinishStream(c, k, Outcome::kTimeout, 0);
    }
  }
  ScheduleStreamTimeout(c);
  Refill(c);
}

}  // namespace uringload::core
