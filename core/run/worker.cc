#include "core/run/worker.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/cpu_contention.h"
#include "net/base/check.h"
#include "net/clock.h"
#include "net/worker_loop.h"

namespace uringload::core {
namespace {

constexpr int64_t kMsNs = 1'000'000;
constexpr int64_t kStopGraceNs = 2000 * kMsNs;  // In-flight requests get this after a stop.

int64_t ToNanos(absl::Duration d) { return absl::ToInt64Nanoseconds(d); }

}  // namespace

Worker::Worker(const WorkerConfig& config, RequestSource* source, WorkerStats* stats,
               const std::atomic<bool>* stop, std::unique_ptr<net::EventLoop> loop)
    : config_(config),
      pacer_(source, config.block_size),
      stats_(stats),
      stop_(stop),
      timeout_ns_(ToNanos(config.plan->timeout)),
      connect_timeout_ns_(ToNanos(config.plan->connect_timeout)),
      batch_(config.plan->pipeline, ToNanos(config.plan->batch_window),
             ToNanos(config.plan->batch_window_max)),
      loop_(std::move(loop)),
      warmup_ns_(ToNanos(config.plan->warmup)) {}

absl::Status Worker::Setup() {
  uint32_t n = config_.connections;
  if (loop_ == nullptr) {
    net::RingEventLoopOptions options{
        .slots = n,
        .sq_entries = std::bit_ceil(std::clamp<uint32_t>(2 * n, 64, 4096)),
        .cq_entries = std::bit_ceil(std::clamp<uint32_t>(4 * n, 1024, 65536)),
        .receive_connections = n,
        .flag_waiting_work = true};  // For the unread check (core/run/unread_sampler.h).
    absl::StatusOr<std::unique_ptr<net::EventLoop>> loop =
        net::MakeWorkerLoop(options, config_.plan->tls, config_.plan->url.host);
    if (!loop.ok()) return loop.status();
    loop_ = *std::move(loop);
  }

  const RunPlan& plan = *config_.plan;
  connections_ = std::vector<Connection>(n);
  for (Connection& c : connections_) c.parser.SetBodyMatcher(plan.checks.body.get());
  if (plan.flow != nullptr) {
    flow_ = plan.flow.get();
    std::span<const size_t> data_sizes;
    if (plan.data != nullptr) data_sizes = plan.data->max_sizes();
    size_t path_bytes = 0;
    for (const proto::RequestTemplate& t : config_.templates) {
      path_bytes = std::max(path_bytes, t.path().max_size());
    }
    users_.reserve(n);
    step_retries_.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      users_.emplace_back(flow_, data_sizes, path_bytes, &completions_at_ns_);
      connections_[i].parser.SetInspector(&users_[i]);
    }
  }
  AssignRoutes();
  // Requests are rendered into a buffer of -p requests per connection, except the common case
  // of one request without placeholders in flight: that one is sent straight from its template.
  size_t stride = 0;
  bool rendered = plan.pipeline > 1;
  bool uses_rows = false;
  for (const proto::RequestTemplate& t : config_.templates) {
    stride = std::max(stride, t.max_size());
    rendered = rendered || !t.is_static();
    uses_rows = uses_rows || t.uses_fields();
  }
  if (uses_rows && plan.data != nullptr) rows_.emplace(plan.data.get());
  // h2c connections never send HTTP/1.1 bytes: their requests become streams (at most one
  // waits for the connect, and its bytes are not used), so they need no buffer.
  bool h2c_only = plan.http == HttpVersion::kHttp2 && !plan.url.tls;
  size_t out_bytes = rendered && !h2c_only ? stride * plan.pipeline : 0;
  request_storage_.resize(n * out_bytes);
  pending_storage_.resize(static_cast<size_t>(n) * plan.pipeline);
  for (uint32_t i = 0; i < n; ++i) {
    Connection& c = connections_[i];
    c.slot = i;
    c.timer.owner = i;
    c.pending = std::span(pending_storage_).subspan(size_t{i} * plan.pipeline, plan.pipeline);
    c.out = std::span(request_storage_).subspan(i * out_bytes, out_bytes);
  }
  retry_.reserve(pending_storage_.size());
  listed_.reserve(n);
  origin_ns_ = config_.start_ns != 0 ? config_.start_ns : loop_->Now();
  if (plan.rate.has_value()) {
    ArrivalSchedule schedule = plan.replay_offsets != nullptr
                                   ? ArrivalSchedule(plan.replay_offsets)
                                   : ArrivalSchedule(*plan.rate, absl::ToDoubleSeconds(plan.ramp));
    pacer_ = RequestPacer(schedule, config_.index, plan.threads, plan.requests, origin_ns_);
    wake_margin_ =
        WakeMargin(static_cast<int64_t>(std::min(1e9 * plan.threads / *plan.rate, 1e18)));
  }
  unstamped_sends_.reserve(n);
  queued_flushes_.reserve(n);
  ramp_.emplace(config_.plan->max_connecting, n);
  return absl::OkStatus();
}

absl::Status Worker::Run() {
  if (absl::Status s = Setup(); !s.ok()) return s;
  if (config_.wait_for_start) WaitForStart();
  StartAll();
  int64_t cpu_at_start = net::ThreadCpuNanos();
  stats_->WorkerStarted(gettid(), ThisThreadRunQueueNanos(), net::MonotonicNanos());
  stats_->WatchRing(loop_->WaitingWorkWord());
  while (live_ > 0) {
    int64_t now = loop_->Now();
    completions_at_ns_ = now;
    CheckStop(now);
    if (pacer_.open()) StartDue(now);
    unsigned sends = StampQueuedSends(now);
    loop_->timers().Advance(
        now, [this, now](net::TimerNode* node) { OnTimeout(connections_[node->owner], now); });
    if (absl::Status s = SubmitAndWait(now, sends); !s.ok()) return s;
    uint64_t handled = completions_handled_;
    DrainCompletions();
    // A poll that found nothing to do was idle time, not work (the busy share).
    if (polling_ && sends == 0 && completions_handled_ == handled) {
      polled_ns_ += completions_at_ns_ - now;
    }
    AdmitQueuedConnects();
  }
  stats_->WorkerFinished(net::ThreadCpuNanos() - cpu_at_start - polled_ns_,
                         loop_->Now() - started_ns_, ThisThreadRunQueueNanos());
  return absl::OkStatus();
}

void Worker::DrainCompletions() {
  in_drain_ = true;
  stats_->Drained();
  loop_->Drain(*this);
  in_drain_ = false;
  FlushQueuedStreams();
}

// Requests queued since the last submit go out with the next one: their latency and
// timeout start now, with one clock read for all of them. Returns how many there were.
unsigned Worker::StampQueuedSends(int64_t now) {
  auto count = static_cast<unsigned>(unstamped_sends_.size());
  for (uint32_t slot : unstamped_sends_) {
    Connection& c = connections_[slot];
    if (c.state != ConnState::kActive) continue;  // Ended before the submit.
    if (c.protocol == Protocol::kHttp2) {
      StampStreams(c, now);
      continue;
    }
    URINGLOAD_CHECK(c.stamped <= c.submitted && c.submitted <= c.count,
                    "slot %u stamped %u submitted %u count %u", c.slot, c.stamped, c.submitted,
                    c.count);
    for (uint32_t k = c.stamped; k < c.submitted; ++k) Stamp(c.at(k), now);
    c.stamped = c.submitted;
    if (!c.timer.scheduled()) ScheduleTimeout(c);
  }
  unstamped_sends_.clear();
  return count;
}

// A request goes out with the submit about to happen: its latency and timeout run from `now`.
// Open model: how late that is for its due time is the client's own lag, unless it waited for
// a connection (PendingRequest::waited).
void Worker::Stamp(PendingRequest& r, int64_t now) {
  r.sent_ns = now;
  if (pacer_.open() && !r.warmup && !r.waited) stats_->ScheduleLag(now - r.intended_ns);
}

// The end of the plan's duration stops new requests; a stop request (SIGINT/SIGTERM) does
// too, and what is still in flight kStopGraceNs later is aborted.
void Worker::CheckStop(int64_t now) {
  bool stop_requested = stop_->load(std::memory_order_relaxed);
  if (!draining_ && (stop_requested || (config_.deadline_ns != 0 && now >= config_.deadline_ns))) {
    draining_ = true;
    // What was due by the end (or by the stop request), however late this loop noticed it.
    bool ended = config_.deadline_ns != 0 && now >= config_.deadline_ns;
    stats_->Unsent(pacer_.Backlog(ended ? config_.deadline_ns - 1 : now));
    if (flow_ != nullptr) CutThinkingUsers();
  }
  if (stop_requested && abort_at_ns_ == 0) abort_at_ns_ = now + kStopGraceNs;
  if (abort_at_ns_ != 0 && now >= abort_at_ns_ && !aborted_) {
    aborted_ = true;
    AbortInFlight();
  }
  if (pacer_.open() && !retired_ && !MoreToCome()) RetireIdle();
}

// Every request still without an outcome ends as a timeout with cause ECANCELED.
void Worker::AbortInFlight() {
  for (Connection& c : connections_) {
    if (c.count == 0) continue;
    if (c.state == ConnState::kIdle) {  // Still queued for a connect: never opened.
      while (c.count > 0) FinishRequest(c, Outcome::kTimeout, ECANCELED);
      c.state = ConnState::kDone;
      --live_;
    } else if (c.state != ConnState::kClosing) {
      Fail(c, Outcome::kTimeout, ECANCELED);
    }
  }
  // A flow's step waiting to go out again ends like the others; its iteration there.
  for (Connection& c : connections_) {
    if (step_retries_.empty() || !step_retries_[c.slot].in_use) continue;
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
  for (const PendingRequest& r : retry_) {
    --in_flight_;
    if (r.warmup) {
      stats_->WarmupCompleted();
    } else {
      stats_->RequestFailed(Outcome::kTimeout, ECANCELED, r.target);
    }
  }
  retry_.clear();
}

// Every way out of a connection: the loop cancels what is pending and closes the slot;
// kClose completes it (OnClosed).
void Worker::Close(Connection& c) {
  URINGLOAD_CHECK(c.state == ConnState::kConnecting || c.state == ConnState::kActive,
                  "slot %u state %d", c.slot, static_cast<int>(c.state));
  loop_->timers().Cancel(&c.timer);
  if (c.state == ConnState::kActive) stats_->ConnectionClosed();
  if (c.state == ConnState::kConnecting) LeaveConnecting(c);
  c.state = ConnState::kClosing;
  loop_->Close(c.slot);
}

// The one way a failure leaves a connection: every request in flight on it ends with
// `outcome` (`error`: its errno, or for a parse error its ParseFailure), then it closes.
void Worker::Fail(Connection& c, Outcome outcome, int error) {
  while (c.count > 0) FinishRequest(c, outcome, error);
  Close(c);
}

void Worker::OnCompletion(const net::Completion& completion) {
  URINGLOAD_CHECK(completion.slot < connections_.size(), "slot %u of %zu op %d", completion.slot,
                  connections_.size(), static_cast<int>(completion.op));
  Connection& c = connections_[completion.slot];
  ++completions_handled_;
  switch (completion.op) {
    case net::Op::kConnect:
      OnConnect(c, completion);
      break;
    case net::Op::kSend:
      OnSend(c, completion.res);
      break;
    case net::Op::kRecv:
      OnReceive(c, completion);
      break;
    case net::Op::kClose:
      OnClosed(c);
      break;
    default:  // The loop keeps socket, cancel and accept completions to itself.
      URINGLOAD_CHECK(false, "slot %u state %d: op %d reached the client", completion.slot,
                      static_cast<int>(c.state), static_cast<int>(completion.op));
  }
}

void Worker::OnConnect(Connection& c, const net::Completion& completion) {
  int res = completion.res;
  URINGLOAD_CHECK(c.state == ConnState::kConnecting && (c.count > 0 || config_.plan->preconnect),
                  "slot %u state %d count %u", c.slot, static_cast<int>(c.state), c.count);
  if (res < 0) {
    Fail(c, Outcome::kConnectError, -res);  // Leaves kConnecting.
    return;
  }
  LeaveConnecting(c);
  loop_->timers().Cancel(&c.timer);  // The connect timeout; the request's starts at its send.
  c.state = ConnState::kActive;
  stats_->ConnectionOpened();
  if (completion.tls != nullptr) {
    stats_->TlsConnected(*completion.tls);
  } else {
    stats_->Connected(completions_at_ns_ - c.connect_started_ns);
  }
  loop_->Receive(c.slot);
  if (completion.tls != nullptr ? completion.tls->http2
                                : config_.plan->http == HttpVersion::kHttp2) {
    stats_->Http2Connected();
    if (!config_.plan->addresses[c.address].is_unix()) loop_->SetNoDelay(c.slot);
    if (absl::Status s = StartSession(c); !s.ok()) {
      Fail(c, Outcome::kConnectError, ENOMEM);  // nghttp2 fails only when out of memory.
      return;
    }
  }
  if (c.count == 0) {  // --preconnect: open before its first request.
    if (preconnecting_) return;
    if (pacer_.open() && !retired_) {
      List(c);  // Waits for the schedule.
    } else {
      Close(c);  // No request will come for it.
    }
    return;
  }
  Fill(c);
  // Open model, -p above 1: room for requests that fall due before its first answer.
  if (pacer_.open() && c.count < Capacity(c)) List(c);
  Flush(c);
}

// The bytes sent leave the buffer; what waits behind them (the rest of a short send, requests
// queued meanwhile) goes next.
void Worker::OnSend(Connection& c, int res) {
  URINGLOAD_CHECK(
      c.state == ConnState::kActive && c.send_size > 0 && res <= static_cast<int>(c.send_size),
      "slot %u state %d send %u res %d", c.slot, static_cast<int>(c.state), c.send_size, res);
  if (res < 0) {
    if (c.protocol == Protocol::kHttp2) {
      LoseConnection(c, -res);
    } else {
      Fail(c, Outcome::kReset, -res);
    }
    return;
  }
  if (!InWarmup()) stats_->BytesSent(res);
  auto sent = static_cast<uint32_t>(res);
  if (c.protocol == Protocol::kHttp2) {
    OnStreamsSent(c, sent);
    return;
  }
  c.out_size -= sent;
  c.send_size = 0;
  if (c.out.empty()) {
    c.static_out += sent;
  } else {
    std::memmove(c.out.data(), c.out.data() + sent, c.out_size);
  }
  if (c.count > 0) Flush(c);
}

// The loop hands over received bytes (res > 0), the peer's close (0) or an error; running
// out of receive buffers is its business (it re-arms).
void Worker::OnReceive(Connection& c, const net::Completion& completion) {
  URINGLOAD_CHECK(c.state == ConnState::kActive, "slot %u state %d res %d", c.slot,
                  static_cast<int>(c.state), completion.res);
  if (completion.res > 0) {
    if (!InWarmup()) stats_->BytesReceived(completion.res);
    uint32_t before = responses_parsed_;
    OnData(c, completion.data);  // llhttp keeps no pointers into the buffer.
    if (config_.plan->pipeline > 1) {
      CountReceiveYield(c, responses_parsed_ - before, completion.more_to_read);
    }
  } else if (completion.res == 0) {
    OnPeerClosed(c);
  } else if (c.protocol == Protocol::kHttp2) {
    LoseConnection(c, -completion.res);
  } else {
    Fail(c, Outcome::kReset, -completion.res);
  }
}

// Responses arrive in request order; one receive may end several of them.
void Worker::OnData(Connection& c, std::string_view data) {
  if (c.protocol == Protocol::kHttp2) {
    OnStreamData(c, data);
    return;
  }
  while (!data.empty()) {
    if (c.count == 0) {  // Bytes nobody asked for: the connection cannot be trusted.
      Close(c);
      return;
    }
    proto::ResponseParser::Result r = c.parser.Feed(data);
    if (r.state == proto::ResponseParser::State::kNeedMore) return;
    if (r.state == proto::ResponseParser::State::kError) {
      bool too_large = c.parser.error_kind() == proto::MessageFeeder::Error::kHeadersTooLarge;
      Fail(c, Outcome::kParseError,
           static_cast<int>(too_large ? ParseFailure::kHeadersTooLarge : ParseFailure::kMalformed));
      return;
    }
    // A request that said `Connection: close` is the last one on it (RFC 9112 9.6), whatever
    // the server answered; so is one the server answered with `Connection: close`.
    bool keep_alive = config_.plan->keep_alive && c.parser.keep_alive();
    ++responses_parsed_;
    FinishRequest(c, Outcome::kOk, 0);
    data.remove_prefix(r.consumed);
    if (!keep_alive) {
      Requeue(c);
      Close(c);
      return;
    }
  }
  // Answered before our send finished (an early error response): the server may not have
  // read the rest as a request boundary, so the connection is not reused.
  if (c.count == 0 && c.send_size > 0) {
    Close(c);
    return;
  }
  Refill(c);
}

void Worker::OnPeerClosed(Connection& c) {
  if (c.protocol == Protocol::kHttp2) {
    LoseConnection(c, ECONNRESET);
    return;
  }
  if (c.count > 0) {
    proto::ResponseParser::Result r = c.parser.Finish();
    if (r.state == proto::ResponseParser::State::kComplete) {
      FinishRequest(c, Outcome::kOk, 0);  // A body delimited by the close.
      Requeue(c);
    } else if (c.parser.started()) {
      Fail(c, Outcome::kParseError, static_cast<int>(ParseFailure::kTruncated));
      return;
    } else {
      Fail(c, Outcome::kReset, ECONNRESET);  // Closed before any response byte.
      return;
    }
  }
  Close(c);
}

void Worker::OnClosed(Connection& c) {
  URINGLOAD_CHECK(c.state == ConnState::kClosing && c.count == 0, "slot %u state %d count %u",
                  c.slot, static_cast<int>(c.state), c.count);
  c.state = ConnState::kIdle;
  c.head = c.submitted = c.stamped = c.undrained_responses = 0;
  c.out_size = c.send_size = 0;
  if (c.protocol == Protocol::kHttp2) {
    Session(c).Stop();  // Its memory goes back while the slot has no connection.
    c.protocol = Protocol::kHttp1;
  }
  if (preconnecting_) return;  // Failed or closed by the peer: StartAll connects it again.
  if (flow_ != nullptr && users_[c.slot].thinking()) {  // It connects again when the think ends.
    ScheduleThink(c);
    return;
  }
  PendingRequest request;
  if (NextRequest(c, &request)) {
    request.waited = true;  // Sent once connected.
    AddRequest(c, request);
    RequestConnect(c);
  } else if (MoreFor(c)) {
    List(c);
  } else {
    c.state = ConnState::kDone;
    --live_;
  }
}

void Worker::OnTimeout(Connection& c, int64_t now) {
  if (flow_ != nullptr && c.count == 0 && users_[c.slot].thinking()) {
    ResumeUser(c);
    return;
  }
  if (c.state == ConnState::kConnecting) {
    Fail(c, Outcome::kConnectError, ETIMEDOUT);
  } else if (c.state == ConnState::kActive && c.count > 0) {
    if (c.protocol == Protocol::kHttp2) {
      TimeOutStreams(c, now);
    } else {
      Fail(c, Outcome::kTimeout, 0);
    }
  }
}

}  // namespace uringload::core
