#include "core/run/http1_driver.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/base/check.h"

namespace uringload::core {

Http1Driver::Http1Driver(DriverHost* host, const DriverEnv& env)
    : host_(host), env_(env), slots_(env.connections) {
  const RunPlan& plan = *env_.plan;
  // Requests are rendered into a buffer of -p requests per connection, except the common case
  // of one request without placeholders in flight: that one is sent straight from its template.
  size_t stride = 0;
  bool rendered = plan.pipeline > 1;
  for (const proto::RequestTemplate& t : env_.templates) {
    stride = std::max(stride, t.max_size());
    rendered = rendered || !t.is_static();
  }
  size_t out_bytes = rendered ? stride * plan.pipeline : 0;
  storage_.resize(env_.connections * out_bytes);
  for (uint32_t i = 0; i < env_.connections; ++i) {
    Slot& s = slots_[i];
    s.out = std::span(storage_).subspan(i * out_bytes, out_bytes);
    s.parser.SetBodyMatcher(plan.checks.body.get());
    if (FlowUser* user = env_.UserOf(i)) s.parser.SetInspector(user);
    s.driver = this;
    if (env_.streams != nullptr) s.parser.SetBodySink(&s);
  }
}

void Http1Driver::StartResponse(Connection& c) {
  slots_[c.slot].parser.Start(env_.TemplateFor(c, c.oldest()).is_head());
  if (env_.streams != nullptr) env_.streams->Begin(env_.StreamEntry(c, 0));
}

// --stream: responses come in order, so one stream of events per connection.
void Http1Driver::Body(Connection& c, std::string_view piece) {
  env_.streams->OnBody(env_.StreamEntry(c, 0), c.oldest(), piece);
}

// The requests that waited for the connect are rendered, oldest first.
void Http1Driver::Open(Connection& c) {
  Slot& s = slots_[c.slot];
  s.out_size = 0;
  s.static_out = nullptr;
  s.connection = &c;
  if (c.count == 0) return;
  StartResponse(c);
  for (uint32_t k = 0; k < c.count; ++k) Render(c, c.at(k));
}

void Http1Driver::Add(Connection& c, const PendingRequest& request) {
  URINGLOAD_CHECK(c.count < c.pending.size(), "slot %u count %u", c.slot, c.count);
  c.at(c.count) = request;
  ++c.count;
  if (c.count == 1) StartResponse(c);
  Render(c, request);
}

void Http1Driver::Render(Connection& c, const PendingRequest& request) {
  Slot& s = slots_[c.slot];
  const proto::RequestTemplate& tmpl = env_.TemplateFor(c, request);
  if (s.out.empty()) {  // One static request in flight at most: sent from the template.
    s.static_out = tmpl.static_bytes().data();
    s.out_size = static_cast<uint32_t>(tmpl.static_bytes().size());
  } else {
    std::string_view bytes =
        tmpl.RenderInto(host_->ContextFor(c, request, tmpl), s.out.subspan(s.out_size));
    s.out_size += static_cast<uint32_t>(bytes.size());
  }
}

// Sends what waits, unless a send is in flight (its completion sends the rest).
void Http1Driver::Flush(Connection& c) {
  Slot& s = slots_[c.slot];
  if (c.send_size != 0 || s.out_size == 0) return;
  c.send_size = s.out_size;
  env_.loop->Send(c.slot, s.out.empty() ? s.static_out : s.out.data(), c.send_size);
  if (c.stamped == c.submitted) env_.QueueStamp(c);  // Else already queued.
  c.submitted = c.count;
}

// After responses: more requests on the connection, or it waits (open model), or it closes.
// Pipelined, closed model: only once half of -p has been answered, so requests go in bursts
// the server can answer with one send (14% more requests against `serve`: docs/performance.md,
// "Measurements behind the code").
void Http1Driver::Refill(Connection& c) {
  if (!env_.open_model && c.count > 0 && 2 * c.count > c.pending.size()) return;
  PendingRequest request;
  while (c.count < c.pending.size() && host_->NextRequest(c, &request)) Add(c, request);
  if (c.count == 0 && !host_->MoreFor(c)) {
    host_->Close(c);
    return;
  }
  if (c.count < c.pending.size() && env_.open_model) host_->List(c);
  Flush(c);
}

void Http1Driver::Stamp(Connection& c, int64_t now) {
  URINGLOAD_CHECK(c.stamped <= c.submitted && c.submitted <= c.count,
                  "slot %u stamped %u submitted %u count %u", c.slot, c.stamped, c.submitted,
                  c.count);
  for (uint32_t k = c.stamped; k < c.submitted; ++k) env_.StampRequest(c.at(k), now);
  c.stamped = c.submitted;
  if (!c.timer.scheduled()) ScheduleTimeout(c);
}

void Http1Driver::FailAll(Connection& c, Outcome outcome, int error) {
  while (c.count > 0) FinishOldest(c, outcome, error);
}

// The bytes sent leave the buffer; what waits behind them (the rest of a short send, requests
// queued meanwhile) goes next.
void Http1Driver::OnSent(Connection& c, int res) {
  URINGLOAD_CHECK(
      c.state == ConnState::kActive && c.send_size > 0 && res <= static_cast<int>(c.send_size),
      "slot %u state %d send %u res %d", c.slot, static_cast<int>(c.state), c.send_size, res);
  if (res < 0) {
    host_->Fail(c, Outcome::kReset, -res);
    return;
  }
  if (!env_.InWarmup()) env_.stats->BytesSent(res);
  Slot& s = slots_[c.slot];
  auto sent = static_cast<uint32_t>(res);
  s.out_size -= sent;
  c.send_size = 0;
  if (s.out.empty()) {
    s.static_out += sent;
  } else {
    std::memmove(s.out.data(), s.out.data() + sent, s.out_size);
  }
  if (c.count > 0) Flush(c);
}

// The loop hands over received bytes (res > 0), the peer's close (0) or an error; running
// out of receive buffers is its business (it re-arms).
void Http1Driver::OnReceived(Connection& c, const net::Completion& completion) {
  URINGLOAD_CHECK(c.state == ConnState::kActive, "slot %u state %d res %d", c.slot,
                  static_cast<int>(c.state), completion.res);
  if (completion.res > 0) {
    if (!env_.InWarmup()) env_.stats->BytesReceived(completion.res);
    uint32_t before = responses_parsed_;
    OnData(c, completion.data);  // llhttp keeps no pointers into the buffer.
    if (env_.plan->pipeline > 1) {
      host_->CountReceiveYield(c, responses_parsed_ - before, completion.more_to_read);
    }
  } else if (completion.res == 0) {
    OnPeerClosed(c);
  } else {
    host_->Fail(c, Outcome::kReset, -completion.res);
  }
}

// Responses arrive in request order; one receive may end several of them.
void Http1Driver::OnData(Connection& c, std::string_view data) {
  proto::ResponseParser& parser = slots_[c.slot].parser;
  while (!data.empty()) {
    if (c.count == 0) {  // Bytes nobody asked for: the connection cannot be trusted.
      host_->Close(c);
      return;
    }
    proto::ResponseParser::Result r = parser.Feed(data);
    if (parser.head_complete()) {
      env_.HeadCame(c.oldest());
      if (parser.body_begun()) env_.BodyCame(c.oldest());
    }
    if (r.state == proto::ResponseParser::State::kNeedMore) return;
    if (r.state == proto::ResponseParser::State::kError) {
      bool too_large = parser.error_kind() == proto::MessageFeeder::Error::kHeadersTooLarge;
      host_->Fail(
          c, Outcome::kParseError,
          static_cast<int>(too_large ? ParseFailure::kHeadersTooLarge : ParseFailure::kMalformed));
      return;
    }
    // A request that said `Connection: close` is the last one on it (RFC 9112 9.6), whatever
    // the server answered; so is one the server answered with `Connection: close`.
    bool keep_alive = env_.plan->keep_alive && parser.keep_alive();
    ++responses_parsed_;
    FinishOldest(c, Outcome::kOk, 0);
    data.remove_prefix(r.consumed);
    if (!keep_alive) {
      Requeue(c);
      host_->Close(c);
      return;
    }
  }
  // Answered before our send finished (an early error response): the server may not have
  // read the rest as a request boundary, so the connection is not reused.
  if (c.count == 0 && c.send_size > 0) {
    host_->Close(c);
    return;
  }
  Refill(c);
}

void Http1Driver::OnPeerClosed(Connection& c) {
  if (c.count > 0) {
    proto::ResponseParser& parser = slots_[c.slot].parser;
    proto::ResponseParser::Result r = parser.Finish();
    if (r.state == proto::ResponseParser::State::kComplete) {
      FinishOldest(c, Outcome::kOk, 0);  // A body delimited by the close.
      Requeue(c);
    } else if (parser.started()) {
      host_->Fail(c, Outcome::kParseError, static_cast<int>(ParseFailure::kTruncated));
      return;
    } else {
      host_->Fail(c, Outcome::kReset, ECONNRESET);  // Closed before any response byte.
      return;
    }
  }
  host_->Close(c);
}

void Http1Driver::OnTimeout(Connection& c, int64_t /*now*/) {
  host_->Fail(c, Outcome::kTimeout, 0);
}

void Http1Driver::Release(Connection& c) {
  Slot& s = slots_[c.slot];
  s.out_size = 0;
  s.static_out = nullptr;
}

void Http1Driver::FinishOldest(Connection& c, Outcome outcome, int error) {
  proto::ResponseParser& parser = slots_[c.slot].parser;
  PendingRequest r = c.oldest();
  uint32_t entry = env_.StreamEntry(c, 0);
  outcome = host_->RecordEnd(c, r, outcome, error,
                             {.status = parser.status_code(),
                              .body_found = parser.body_found(),
                              .events = env_.streams != nullptr ? env_.streams->events(entry) : 0});
  if (env_.streams != nullptr && outcome == Outcome::kOk) {
    env_.streams->Completed(entry, r);
  }
  c.PopOldest();
  if (c.submitted > 0) --c.submitted;
  if (c.stamped > 0) --c.stamped;
  env_.loop->timers().Cancel(&c.timer);
  if (env_.flow()) host_->AfterEnd(c, r, outcome);
  if (c.count == 0) return;
  StartResponse(c);
  if (c.stamped > 0) ScheduleTimeout(c);
}

// The server ended the connection after a complete response: the requests sent behind it were
// never answered, so they go out again on another connection (they stay started, once; each is
// counted retried, as every request sent again is).
void Http1Driver::Requeue(Connection& c) {
  while (c.count > 0) {
    host_->Retry(c, c.oldest());
    c.PopOldest();
  }
  c.submitted = c.stamped = 0;
}

// The timeout runs from the send of the oldest request in flight.
void Http1Driver::ScheduleTimeout(Connection& c) {
  if (c.count > 0) env_.loop->timers().Schedule(&c.timer, c.oldest().sent_ns + env_.timeout_ns);
}

}  // namespace uringload::core
