#include "core/run/worker.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/ring_event_loop.h"
#include "net/tls_event_loop.h"

namespace uringload::core {
namespace {

constexpr int64_t kMsNs = 1'000'000;
constexpr int64_t kMaxWaitWithTimersNs = 10 * kMsNs;  // Timer wheel resolution in practice.
constexpr int64_t kMaxWaitNs = 100 * kMsNs;           // How fast a stop request is noticed.
constexpr int64_t kStopGraceNs = 2000 * kMsNs;        // In-flight requests get this after a stop.

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
      batch_window_ns_(ToNanos(config.plan->batch_window)),
      batch_window_max_ns_(ToNanos(config.plan->batch_window_max)),
      wait_window_ns_(batch_window_ns_),
      loop_(std::move(loop)),
      warmup_ns_(ToNanos(config.plan->warmup)),
      receive_yield_x16_(std::max<uint32_t>(16, config.plan->pipeline / 2 * 16)) {}

absl::Status Worker::Setup() {
  uint32_t n = config_.connections;
  if (loop_ == nullptr) {
    net::RingEventLoopOptions options{
        .slots = n,
        .sq_entries = std::bit_ceil(std::clamp<uint32_t>(2 * n, 64, 4096)),
        .cq_entries = std::bit_ceil(std::clamp<uint32_t>(4 * n, 1024, 65536)),
        .receive_connections = n};
    absl::StatusOr<std::unique_ptr<net::RingEventLoop>> loop = net::RingEventLoop::Create(options);
    if (!loop.ok()) return loop.status();
    loop_ = *std::move(loop);
    if (config_.plan->tls != nullptr) {  // https://: the same loop behind TLS.
      loop_ = std::make_unique<net::TlsEventLoop>(std::move(loop_), config_.plan->tls, n,
                                                  config_.plan->url.host);
    }
  }

  const RunPlan& plan = *config_.plan;
  connections_ = std::vector<Connection>(n);
  AssignRoutes();
  // Requests are rendered into a buffer of -p requests per connection, except the common case
  // of one request without {i} in flight: that one is sent straight from its template.
  size_t stride = 0;
  bool rendered = plan.pipeline > 1;
  for (const proto::RequestTemplate& t : config_.templates) {
    stride = std::max(stride, t.max_size());
    rendered = rendered || t.has_index();
  }
  size_t out_bytes = rendered ? stride * plan.pipeline : 0;
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
    pacer_ = RequestPacer(ArrivalSchedule(*plan.rate, absl::ToDoubleSeconds(plan.ramp)),
                          config_.index, plan.threads, plan.requests, origin_ns_);
  }
  unstamped_sends_.reserve(n);
  ramp_.emplace(config_.plan->max_connecting, n);
  return absl::OkStatus();
}

absl::Status Worker::Run() {
  if (absl::Status s = Setup(); !s.ok()) return s;
  if (config_.wait_for_start) WaitForStart();
  StartAll();
  while (live_ > 0) {
    int64_t now = loop_->Now();
    completions_at_ns_ = now;
    CheckStop(now);
    if (pacer_.open()) StartDue(now);
    unsigned sends = StampQueuedSends(now);
    loop_->timers().Advance(now,
                            [this](net::TimerNode* node) { OnTimeout(connections_[node->owner]); });
    if (absl::Status s = SubmitAndWait(now, sends); !s.ok()) return s;
    loop_->Drain(*this);
    AdmitQueuedConnects();
  }
  return absl::OkStatus();
}

// Requests queued since the last submit go out with the next one: their latency and
// timeout start now, with one clock read for all of them. Returns how many there were.
unsigned Worker::StampQueuedSends(int64_t now) {
  auto count = static_cast<unsigned>(unstamped_sends_.size());
  for (uint32_t slot : unstamped_sends_) {
    Connection& c = connections_[slot];
    if (c.state != ConnState::kActive) continue;  // Ended before the submit.
    for (uint32_t k = c.stamped; k < c.submitted; ++k) c.at(k).sent_ns = now;
    c.stamped = c.submitted;
    if (!c.timer.scheduled()) ScheduleTimeout(c);
  }
  unstamped_sends_.clear();
  return count;
}

// Submits what is queued and waits for a batch of completions (see BatchTarget). The `sends`
// just queued complete inline during the submit and their completions count towards the
// wait, so it waits for that many more, up to the target again: waiting for thousands of
// completions at c=10,000 made every batch huge and cost ~25% more CPU per request.
// A peer that trickles (Trickling) is slept out instead: a wait for more completions than
// come ends with the window, and then the kernel runs the receives that gathered until it has
// the completions waited for or none is pending, so it kept reading the sockets nginx kept
// writing, about one response per receive (0.97 receives and 0.35 packets sent per request).
// Sleeping out the window and then taking what is ready reads each socket about once per
// window. Against nginx, -p 16 (2026-12-02, 3 s, 2 rounds): c=100 1.20-1.30 against
// 1.48-1.50 us of CPU per request and 0-5% more requests; c=1000 1.47-1.59 against 2.00 us.
absl::Status Worker::SubmitAndWait(int64_t now, unsigned sends) {
  int64_t budget = WaitBudget(now);
  absl::Status status;
  if (Trickling()) {
    status = loop_->SubmitAndSleep(std::min(budget, wait_window_ns_));
  } else {
    unsigned target = BatchTarget();
    unsigned batch = target + std::min(sends, target);
    if (batch > 1) budget = std::min(budget, wait_window_ns_);
    status = loop_->SubmitAndWait(budget, batch);
  }
  if (!status.ok()) return status;
  // Every completion drained next was ready by now: one clock read serves them all.
  completions_at_ns_ = loop_->Now();
  return absl::OkStatus();
}

// The end of the plan's duration stops new requests; a stop request (SIGINT/SIGTERM) does
// too, and what is still in flight kStopGraceNs later is aborted.
void Worker::CheckStop(int64_t now) {
  bool stop_requested = stop_->load(std::memory_order_relaxed);
  if (!draining_ && (stop_requested || (config_.deadline_ns != 0 && now >= config_.deadline_ns))) {
    draining_ = true;
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

int64_t Worker::WaitBudget(int64_t now) const {
  int64_t wait = loop_->timers().size() > 0 ? kMaxWaitWithTimersNs : kMaxWaitNs;
  if (!draining_ && config_.deadline_ns != 0) {
    wait = std::min(wait, std::max<int64_t>(config_.deadline_ns - now, 0));
  }
  // Wake for the next request of the schedule; one already due waits for a connection, and
  // the completion that frees one wakes us anyway.
  int64_t due = pacer_.next_due_ns();
  if (pacer_.open() && !draining_ && due > now && due != RequestPacer::kNever) {
    wait = std::min(wait, due - now);
  }
  return wait;
}

// Waking for every completion costs a context switch each; waiting for half of the
// connections with requests in flight (at most 64), or the batch window, costs ~15% less CPU
// per request at c=100 (measured; a quarter saved ~10%) and can add at most the window to a
// latency. With -p D a connection's receive completes up to D requests at once, so it counts
// connections, not requests: waiting for half of 1,600 pipelined requests' worth of
// completions from 100 connections kept every batch waiting out the window (-p 16 at c=100
// ran at 55% of h2load -m 16's rate). But a server that writes each pipelined response on
// its own (nginx) gives a completion per response, and waiting for half the connections' worth
// then wakes for every few responses. So when the receives have been carrying fewer than p/4
// responses each (Trickling), the worker waits out the window instead. Against nginx, -p 16
// (2026-12-02, alternating): c=100 1.58-1.71 against 2.17-2.28 us of CPU per request and
// 17-21% more requests; c=10 1.64-1.67 against 2.63-2.86 us; -p 8 1.94-1.97 against
// 2.32-2.37 us. A target from the yield itself (in_flight / (4 x yield)) cost `serve` (a
// burst per send, ~p/2 per receive) 2-6% of its requests at -p 16: the threshold leaves such
// servers the target they had.
unsigned Worker::BatchTarget() const {
  if (batch_window_ns_ == 0) return 1;
  return std::clamp<unsigned>(in_flight_ / (2 * config_.plan->pipeline), 1, 64);
}

bool Worker::Trickling() const {
  uint32_t pipeline = config_.plan->pipeline;
  return batch_window_ns_ != 0 && pipeline > 1 && receive_yield_x16_ * 4 < pipeline * 16;
}

// Counts one receive on `c` that ended `responses` responses towards the yield Trickling uses:
// responses per drain of the socket, as a burst read through several buffers (larger responses
// than a 1 KiB classic buffer holds) is one burst, not a trickle. Counted per receive, 1 KiB
// responses at -p 16 against `serve` looked like nginx's trickle and waited out the window:
// 141k requests/s against 2.4M (2026-12-02).
// It also sets the window from the latency of the requests answered meanwhile. A longer wait
// lets more responses gather in each socket, and a receive costs the kernel the same (and an
// ACK back) whether it carries one response or five. Sleeping out the window against nginx,
// -p 16, c=100 (2026-12-02): 200 us 1.28-1.30 us of CPU per request, 300 us 1.20-1.23,
// 400 us 1.20 at the same request rate; 500 us 3% fewer requests, 700 us 15% fewer. The
// window stays under a quarter of the mean latency: the requests still queued at the server
// (half of -p at least, as Refill waits for half to be answered) then keep it busy while the
// client sleeps; that is also the most it may add to a latency.
void Worker::CountReceiveYield(Connection& c, uint32_t responses, bool more_to_read) {
  constexpr uint32_t kYieldWindow = 64;
  responses += c.undrained_responses;
  if (more_to_read) {
    c.undrained_responses = static_cast<uint16_t>(std::min<uint32_t>(responses, UINT16_MAX));
    return;
  }
  c.undrained_responses = 0;
  ++window_receives_;
  window_responses_ += responses;
  if (window_receives_ < kYieldWindow) return;
  receive_yield_x16_ = std::max<uint32_t>(16, window_responses_ * 16 / window_receives_);
  if (window_latencies_ > 0) {
    auto quarter = static_cast<int64_t>(window_latency_ns_ / window_latencies_ / 4);
    wait_window_ns_ = std::clamp(quarter, batch_window_ns_, batch_window_max_ns_);
  }
  window_receives_ = window_responses_ = window_latencies_ = 0;
  window_latency_ns_ = 0;
}

// Every way out of a connection: the loop cancels what is pending and closes the slot;
// kClose completes it (OnClosed).
void Worker::Close(Connection& c) {
  assert(c.state == ConnState::kConnecting || c.state == ConnState::kActive);
  loop_->timers().Cancel(&c.timer);
  if (c.open) {
    stats_->ConnectionClosed();
    c.open = false;
  }
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
  Connection& c = connections_[completion.slot];
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
      assert(false);
  }
}

void Worker::OnConnect(Connection& c, const net::Completion& completion) {
  int res = completion.res;
  assert(c.state == ConnState::kConnecting && (c.count > 0 || config_.plan->preconnect));
  if (res < 0) {
    Fail(c, Outcome::kConnectError, -res);  // Leaves kConnecting.
    return;
  }
  LeaveConnecting(c);
  loop_->timers().Cancel(&c.timer);  // The connect timeout; the request's starts at its send.
  c.state = ConnState::kActive;
  c.open = true;
  stats_->ConnectionOpened();
  if (completion.tls != nullptr) {
    stats_->TlsConnected(*completion.tls);
  } else {
    stats_->Connected(completions_at_ns_ - c.connect_started_ns);
  }
  loop_->Receive(c.slot);
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
  Flush(c);
}

// The bytes sent leave the buffer; what waits behind them (the rest of a short send, requests
// queued meanwhile) goes next.
void Worker::OnSend(Connection& c, int res) {
  assert(c.state == ConnState::kActive && c.send_size > 0);
  if (res < 0) {
    Fail(c, Outcome::kReset, -res);
    return;
  }
  stats_->BytesSent(res);
  auto sent = static_cast<uint32_t>(res);
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
  assert(c.state == ConnState::kActive);
  if (completion.res > 0) {
    stats_->BytesReceived(completion.res);
    uint32_t before = responses_parsed_;
    OnData(c, completion.data);  // llhttp keeps no pointers into the buffer.
    if (config_.plan->pipeline > 1) {
      CountReceiveYield(c, responses_parsed_ - before, completion.more_to_read);
    }
  } else if (completion.res == 0) {
    OnPeerClosed(c);
  } else {
    Fail(c, Outcome::kReset, -completion.res);
  }
}

// Responses arrive in request order; one receive may end several of them.
void Worker::OnData(Connection& c, std::string_view data) {
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
  assert(c.state == ConnState::kClosing && c.count == 0);
  c.state = ConnState::kIdle;
  c.head = c.submitted = c.stamped = c.undrained_responses = 0;
  c.out_size = c.send_size = 0;
  if (preconnecting_) return;  // Failed or closed by the peer: StartAll connects it again.
  PendingRequest request;
  if (NextRequest(&request)) {
    AddRequest(c, request);
    RequestConnect(c);
  } else if (MoreToCome()) {
    List(c);
  } else {
    c.state = ConnState::kDone;
    --live_;
  }
}

void Worker::OnTimeout(Connection& c) {
  if (c.state == ConnState::kConnecting) {
    Fail(c, Outcome::kConnectError, ETIMEDOUT);
  } else if (c.state == ConnState::kActive && c.count > 0) {
    Fail(c, Outcome::kTimeout, 0);
  }
}

}  // namespace uringload::core
