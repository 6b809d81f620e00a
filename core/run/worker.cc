#include "core/run/worker.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cassert>

#include "absl/strings/str_cat.h"
#include "net/clock.h"
#include "net/ring_event_loop.h"

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
      cursor_(source, config.block_size),
      stats_(stats),
      stop_(stop),
      timeout_ns_(ToNanos(config.plan->timeout)),
      connect_timeout_ns_(ToNanos(config.plan->connect_timeout)),
      batch_window_ns_(ToNanos(config.plan->batch_window)),
      loop_(std::move(loop)) {}

absl::Status Worker::Setup() {
  uint32_t n = config_.connections;
  if (loop_ == nullptr) {
    net::RingEventLoopOptions options{
        .slots = n,
        .sq_entries = std::bit_ceil(std::clamp<uint32_t>(2 * n, 64, 4096)),
        .cq_entries = std::bit_ceil(std::clamp<uint32_t>(4 * n, 1024, 65536)),
        .receive_buffers = net::RecommendedBufferCount(n)};
    absl::StatusOr<std::unique_ptr<net::RingEventLoop>> loop = net::RingEventLoop::Create(options);
    if (!loop.ok()) return loop.status();
    loop_ = *std::move(loop);
  }

  connections_ = std::vector<Connection>(n);
  AssignRoutes();
  size_t stride = 0;
  for (const proto::RequestTemplate& t : config_.templates) {
    if (t.has_index()) stride = std::max(stride, t.max_size());
  }
  request_storage_.resize(static_cast<size_t>(n) * stride);
  for (uint32_t i = 0; i < n; ++i) {
    Connection& c = connections_[i];
    c.slot = i;
    c.timer.owner = i;
    const proto::RequestTemplate& tmpl = config_.templates[c.target];
    std::span<char> storage;
    if (tmpl.has_index()) storage = std::span<char>(request_storage_).subspan(i * stride, stride);
    c.request = proto::RenderedRequest(&tmpl, storage);
  }
  unstamped_sends_.reserve(n);
  ramp_.emplace(config_.plan->max_connecting, n);
  return absl::OkStatus();
}

absl::Status Worker::Run() {
  if (absl::Status s = Setup(); !s.ok()) return s;
  StartAll();
  while (live_ > 0) {
    int64_t now = loop_->Now();
    unsigned sends = StampQueuedSends(now);
    CheckStop(now);
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
    if (!c.has_request || c.state != ConnState::kActive) continue;  // Ended before the submit.
    c.sent_at_ns = now;
    loop_->timers().Schedule(&c.timer, now + timeout_ns_);
  }
  unstamped_sends_.clear();
  return count;
}

// Submits what is queued and waits for a batch of completions (see BatchTarget). The `sends`
// just queued complete inline during the submit and their completions count towards the
// wait, so it waits for that many more, up to the target again: waiting for thousands of
// completions at c=10,000 made every batch huge and cost ~25% more CPU per request.
absl::Status Worker::SubmitAndWait(int64_t now, unsigned sends) {
  unsigned target = BatchTarget();
  unsigned batch = target + std::min(sends, target);
  int64_t budget = WaitBudget(now);
  if (batch > 1) budget = std::min(budget, batch_window_ns_);
  if (absl::Status s = loop_->SubmitAndWait(budget, batch); !s.ok()) return s;
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
}

// Every request still without an outcome ends as a timeout with cause ECANCELED.
void Worker::AbortInFlight() {
  for (Connection& c : connections_) {
    if (!c.has_request) continue;
    FinishRequest(c, Outcome::kTimeout, ECANCELED);
    if (c.state == ConnState::kIdle) {  // Still queued for a connect: never opened.
      c.state = ConnState::kDone;
      --live_;
    } else if (c.state != ConnState::kClosing) {
      Close(c);
    }
  }
}

void Worker::StartAll() {
  started_ns_ = loop_->Now();
  for (Connection& c : connections_) {
    if (NextRequest(c)) {
      ++live_;
      ++ramp_remaining_;
      RequestConnect(c);
    } else {
      c.state = ConnState::kDone;
    }
  }
}

int64_t Worker::WaitBudget(int64_t now) const {
  int64_t wait = loop_->timers().size() > 0 ? kMaxWaitWithTimersNs : kMaxWaitNs;
  if (!draining_ && config_.deadline_ns != 0) {
    wait = std::min(wait, std::max<int64_t>(config_.deadline_ns - now, 0));
  }
  return wait;
}

// Waking for every completion costs a context switch each; waiting for half of the
// requests in flight (at most 64), or the batch window, costs ~15% less CPU per request at
// c=100 (measured; a quarter saved ~10%) and can add at most the window to a latency.
unsigned Worker::BatchTarget() const {
  if (batch_window_ns_ == 0) return 1;
  return std::clamp<unsigned>(in_flight_ / 2, 1, 64);
}

bool Worker::NextRequest(Connection& c) {
  if (draining_ || !cursor_.Next(&c.index)) return false;
  c.has_request = true;
  ++in_flight_;
  stats_->RequestStarted();
  return true;
}

void Worker::SendRequest(Connection& c) {
  std::string_view bytes = c.request.Render(c.index);
  c.send_data = bytes.data();
  c.send_size = static_cast<uint32_t>(bytes.size());
  c.send_offset = 0;
  c.parser.Start(config_.templates[c.target].is_head());
  c.sent_at_ns = completions_at_ns_;  // Refined by StampQueuedSends before the submit.
  unstamped_sends_.push_back(c.slot);
  QueueSend(c);
}

void Worker::QueueSend(Connection& c) {
  loop_->Send(c.slot, c.send_data + c.send_offset, c.send_size - c.send_offset);
}

void Worker::ArmRecv(Connection& c) { loop_->Receive(c.slot); }

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

// The one way a failure leaves a connection: the request in flight, if any, ends with
// `outcome` (`error`: its errno, or for a parse error its ParseFailure), then the connection
// closes.
void Worker::Fail(Connection& c, Outcome outcome, int error) {
  if (c.has_request) FinishRequest(c, outcome, error);
  Close(c);
}

void Worker::FinishRequest(Connection& c, Outcome outcome, int error) {
  c.has_request = false;
  --in_flight_;
  loop_->timers().Cancel(&c.timer);
  if (outcome == Outcome::kOk) {
    stats_->RequestSucceeded(c.parser.status_code(), completions_at_ns_ - c.sent_at_ns);
  } else {
    stats_->RequestFailed(outcome, error);
  }
}

void Worker::OnCompletion(const net::Completion& completion) {
  Connection& c = connections_[completion.slot];
  switch (completion.op) {
    case net::Op::kConnect:
      OnConnect(c, completion.res);
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

void Worker::OnConnect(Connection& c, int res) {
  assert(c.state == ConnState::kConnecting && c.has_request);
  if (res < 0) {
    Fail(c, Outcome::kConnectError, -res);  // Leaves kConnecting.
    return;
  }
  LeaveConnecting(c);
  c.state = ConnState::kActive;
  c.open = true;
  stats_->ConnectionOpened();
  ArmRecv(c);
  SendRequest(c);
}

void Worker::OnSend(Connection& c, int res) {
  assert(c.state == ConnState::kActive);
  if (res < 0) {
    Fail(c, Outcome::kReset, -res);
    return;
  }
  stats_->BytesSent(res);
  c.send_offset += res;
  if (c.has_request && c.send_offset < c.send_size) QueueSend(c);
}

// The loop hands over received bytes (res > 0), the peer's close (0) or an error; running
// out of receive buffers is its business (it re-arms).
void Worker::OnReceive(Connection& c, const net::Completion& completion) {
  assert(c.state == ConnState::kActive);
  if (completion.res > 0) {
    stats_->BytesReceived(completion.res);
    OnData(c, completion.data);  // llhttp keeps no pointers into the buffer.
  } else if (completion.res == 0) {
    OnPeerClosed(c);
  } else {
    Fail(c, Outcome::kReset, -completion.res);
  }
}

void Worker::OnData(Connection& c, std::string_view data) {
  if (!c.has_request) {  // Bytes nobody asked for: the connection cannot be trusted.
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
  FinishRequest(c, Outcome::kOk, 0);
  // Reuse only a clean keep-alive connection: both sides kept it alive (a request that said
  // `Connection: close` is the last one on it, RFC 9112 9.6, whatever the server answered),
  // no extra bytes, our send finished.
  bool reusable = config_.plan->request.keep_alive && c.parser.keep_alive() &&
                  r.consumed == data.size() && !loop_->SendPending(c.slot);
  if (reusable && NextRequest(c)) {
    SendRequest(c);
  } else {
    Close(c);
  }
}

void Worker::OnPeerClosed(Connection& c) {
  if (c.has_request) {
    proto::ResponseParser::Result r = c.parser.Finish();
    if (r.state == proto::ResponseParser::State::kComplete) {
      FinishRequest(c, Outcome::kOk, 0);  // A body delimited by the close.
    } else if (c.parser.started()) {
      FinishRequest(c, Outcome::kParseError, static_cast<int>(ParseFailure::kTruncated));
    } else {
      FinishRequest(c, Outcome::kReset, ECONNRESET);  // Closed before any response byte.
    }
  }
  Close(c);
}

void Worker::OnClosed(Connection& c) {
  assert(c.state == ConnState::kClosing);
  c.state = ConnState::kIdle;
  if (NextRequest(c)) {
    RequestConnect(c);
  } else {
    c.state = ConnState::kDone;
    --live_;
  }
}

void Worker::OnTimeout(Connection& c) {
  if (c.state == ConnState::kConnecting) {
    Fail(c, Outcome::kConnectError, ETIMEDOUT);
  } else if (c.state == ConnState::kActive && c.has_request) {
    Fail(c, Outcome::kTimeout, 0);
  }
}

}  // namespace uringload::core
