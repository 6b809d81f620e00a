#include "core/worker.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"
#include "net/client_socket.h"
#include "net/clock.h"

namespace uringload::core {
namespace {

constexpr uint16_t kBufferGroup = 0;
constexpr int64_t kMsNs = 1'000'000;
constexpr int64_t kMaxWaitWithTimersNs = 10 * kMsNs;  // Timer wheel resolution in practice.
constexpr int64_t kMaxWaitNs = 100 * kMsNs;           // How fast a stop request is noticed.
constexpr int64_t kStopGraceNs = 2000 * kMsNs;        // In-flight requests get this after a stop.

int64_t ToNanos(absl::Duration d) { return absl::ToInt64Nanoseconds(d); }

}  // namespace

Worker::Worker(const WorkerConfig& config, RequestSource* source, WorkerStats* stats,
               const std::atomic<bool>* stop)
    : config_(config),
      cursor_(source, config.block_size),
      stats_(stats),
      stop_(stop),
      timeout_ns_(ToNanos(config.plan->timeout)),
      connect_timeout_ns_(ToNanos(config.plan->connect_timeout)),
      batch_window_ns_(ToNanos(config.plan->batch_window)) {}

absl::Status Worker::Setup() {
  uint32_t n = config_.connections;
  net::RingOptions options;
  options.sq_entries = std::bit_ceil(std::clamp<uint32_t>(2 * n, 64, 4096));
  options.cq_entries = std::bit_ceil(std::clamp<uint32_t>(4 * n, 1024, 65536));
  options.direct_descriptors = n;
  absl::StatusOr<std::unique_ptr<net::Ring>> ring = net::Ring::Create(options);
  if (!ring.ok()) return ring.status();
  ring_ = *std::move(ring);
  absl::StatusOr<std::unique_ptr<net::ProvidedBufferRing>> buffers =
      net::ProvidedBufferRing::Create(ring_->raw(), kBufferGroup, net::RecommendedBufferCount(n),
                                      net::kReceiveBufferSize);
  if (!buffers.ok()) return buffers.status();
  buffers_ = *std::move(buffers);
  wheel_ = std::make_unique<net::TimerWheel>(net::MonotonicNanos());

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
  rearm_queue_.reserve(n);
  unstamped_sends_.reserve(n);
  ramp_.emplace(config_.plan->max_connecting, n);
  return absl::OkStatus();
}

absl::Status Worker::Run() {
  if (absl::Status s = Setup(); !s.ok()) return s;
  StartAll();
  while (live_ > 0) {
    int64_t now = net::MonotonicNanos();
    unsigned sends = StampQueuedSends(now);
    CheckStop(now);
    wheel_->Advance(now, [this](net::TimerNode* node) { OnTimeout(connections_[node->owner]); });
    if (absl::Status s = SubmitAndWait(now, sends); !s.ok()) return s;
    ring_->DrainCompletions([this](const io_uring_cqe& cqe) { OnCompletion(cqe); });
    buffers_->Publish();
    RearmQueued();
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
    wheel_->Schedule(&c.timer, now + timeout_ns_);
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
  int ret = ring_->SubmitAndWait(budget, batch);
  if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
    return absl::InternalError(absl::StrCat("io_uring_enter failed: ", strerror(-ret)));
  }
  // Every completion drained next was ready by now: one clock read serves them all.
  completions_at_ns_ = net::MonotonicNanos();
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
  started_ns_ = net::MonotonicNanos();
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
  int64_t wait = wheel_->size() > 0 ? kMaxWaitWithTimersNs : kMaxWaitNs;
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
  ring_->SendAll(c.slot, c.send_data + c.send_offset, c.send_size - c.send_offset,
                 PackUserData(c.slot, c.generation, Op::kSend));
  c.send_pending = true;
}

void Worker::ArmRecv(Connection& c) {
  ring_->RecvMultishot(c.slot, kBufferGroup, PackUserData(c.slot, c.generation, Op::kRecv));
  c.recv_armed = true;
}

void Worker::Close(Connection& c) {
  wheel_->Cancel(&c.timer);
  if (c.open) {
    stats_->ConnectionClosed();
    c.open = false;
  }
  uint64_t pending[3];
  size_t count = 0;
  if (c.recv_armed) pending[count++] = PackUserData(c.slot, c.generation, Op::kRecv);
  if (c.send_pending) pending[count++] = PackUserData(c.slot, c.generation, Op::kSend);
  if (c.state == ConnState::kConnecting) {
    pending[count++] = PackUserData(c.slot, c.generation, Op::kConnect);
    LeaveConnecting(c);
  }
  ++c.generation;  // Completions of the old incarnation are stale from now on.
  c.state = ConnState::kClosing;
  c.recv_armed = false;
  c.send_pending = false;
  ring_->CancelThenClose(c.slot, std::span(pending, count),
                         PackUserData(c.slot, c.generation, Op::kCancel),
                         PackUserData(c.slot, c.generation, Op::kClose));
}

void Worker::FinishRequest(Connection& c, Outcome outcome, int error) {
  c.has_request = false;
  --in_flight_;
  wheel_->Cancel(&c.timer);
  if (outcome == Outcome::kOk) {
    stats_->RequestSucceeded(c.parser.status_code(), completions_at_ns_ - c.sent_at_ns);
  } else {
    stats_->RequestFailed(outcome, error);
  }
}

void Worker::OnCompletion(const io_uring_cqe& cqe) {
  Connection& c = connections_[UserDataSlot(cqe.user_data)];
  bool stale = !IsCurrent(cqe.user_data, c.generation);
  Op op = UserDataOp(cqe.user_data);
  if (stale) {
    // A late completion of a closed incarnation: only its buffer matters.
    if (cqe.flags & IORING_CQE_F_BUFFER) buffers_->Return(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
    return;
  }
  switch (op) {
    case Op::kSocket:  // Posted only on failure (CQE_SKIP_SUCCESS); the connect follows.
      c.socket_error = -cqe.res;
      break;
    case Op::kConnect:
      OnConnect(c, cqe.res);
      break;
    case Op::kSend:
      OnSend(c, cqe.res);
      break;
    case Op::kRecv:
      OnRecv(c, cqe);
      break;
    case Op::kCancel:  // Nothing was pending: fine.
    case Op::kAccept:  // Servers only.
      break;
    case Op::kClose:
      OnClosed(c);
      break;
  }
}

void Worker::OnConnect(Connection& c, int res) {
  LeaveConnecting(c);
  if (res < 0) {
    int error = res == -ECANCELED && c.socket_error != 0 ? c.socket_error : -res;
    FinishRequest(c, Outcome::kConnectError, error);
    Close(c);
    return;
  }
  c.state = ConnState::kActive;
  c.open = true;
  stats_->ConnectionOpened();
  ArmRecv(c);
  SendRequest(c);
}

void Worker::OnSend(Connection& c, int res) {
  c.send_pending = false;
  if (res < 0) {
    if (c.has_request) FinishRequest(c, Outcome::kReset, -res);
    Close(c);
    return;
  }
  stats_->BytesSent(res);
  c.send_offset += res;
  if (c.has_request && c.send_offset < c.send_size) QueueSend(c);
}

void Worker::OnRecv(Connection& c, const io_uring_cqe& cqe) {
  bool more = cqe.flags & IORING_CQE_F_MORE;
  if (!more) c.recv_armed = false;
  if (cqe.res > 0) {
    uint16_t id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
    stats_->BytesReceived(cqe.res);
    OnData(c, buffers_->Data(id, cqe.res));
    buffers_->Return(id);  // llhttp keeps no pointers into it.
  } else if (cqe.flags & IORING_CQE_F_BUFFER) {
    buffers_->Return(cqe.flags >> IORING_CQE_BUFFER_SHIFT);  // Never expected; never leak.
  }
  if (cqe.res == 0) {
    OnPeerClosed(c);
    return;
  }
  if (cqe.res < 0 && cqe.res != -ENOBUFS) {
    if (c.has_request) FinishRequest(c, Outcome::kReset, -cqe.res);
    Close(c);
    return;
  }
  // Out of buffers or multishot ended (e.g. CQ overflow): data waits in the socket.
  if (!c.recv_armed && c.state == ConnState::kActive && !c.rearm_queued) {
    c.rearm_queued = true;
    rearm_queue_.push_back(c.slot);
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
    FinishRequest(c, Outcome::kParseError, 0);
    Close(c);
    return;
  }
  FinishRequest(c, Outcome::kOk, 0);
  // Reuse only a clean keep-alive connection: both sides kept it alive (a request that said
  // `Connection: close` is the last one on it, RFC 9112 9.6, whatever the server answered),
  // no extra bytes, our send finished.
  bool reusable = config_.plan->request.keep_alive && c.parser.keep_alive() &&
                  r.consumed == data.size() && !c.send_pending;
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
      FinishRequest(c, Outcome::kParseError, 0);  // Truncated response.
    } else {
      FinishRequest(c, Outcome::kReset, ECONNRESET);  // Closed before any response byte.
    }
  }
  Close(c);
}

void Worker::OnClosed(Connection& c) {
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
    FinishRequest(c, Outcome::kConnectError, ETIMEDOUT);
    Close(c);
  } else if (c.state == ConnState::kActive && c.has_request) {
    FinishRequest(c, Outcome::kTimeout, 0);
    Close(c);
  }
}

void Worker::RearmQueued() {
  for (uint32_t slot : rearm_queue_) {
    Connection& c = connections_[slot];
    c.rearm_queued = false;
    if (c.state == ConnState::kActive && !c.recv_armed) ArmRecv(c);
  }
  rearm_queue_.clear();
}

}  // namespace uringload::core
