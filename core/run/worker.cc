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
#include "net/base/status_macros.h"
#include "net/clock.h"
#include "net/worker_loop.h"

namespace uringload::core {
namespace {

constexpr int64_t kMsNs = 1'000'000;
constexpr int64_t kStopGraceNs = 2000 * kMsNs;  // In-flight requests get this after a stop.

int64_t ToNanos(absl::Duration d) { return absl::ToInt64Nanoseconds(d); }

// The plan's arrivals, seeded from --seed and the shard: the shards of a run arrive each on
// their own draw, as independent clients would (a sum of Poisson processes is one).
ArrivalProcess ArrivalOf(const RunPlan& plan) {
  ArrivalProcess arrival = plan.arrival;
  arrival.seed = plan.seed * 0x9E3779B97F4A7C15ull + plan.shard.index;
  return arrival;
}

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
  const RunPlan& plan = *config_.plan;
  uint32_t n = config_.connections * plan.lanes;  // A flow's users hold a connection per lane.
  if (loop_ == nullptr) {
    net::RingEventLoopOptions options{
        .slots = n,
        .sq_entries = std::bit_ceil(std::clamp<uint32_t>(2 * n, 64, 4096)),
        .cq_entries = std::bit_ceil(std::clamp<uint32_t>(4 * n, 1024, 65536)),
        .receive_connections = n,
        // --http3: datagram runs of up to 64 KiB; a few per connection at most wait at once.
        .datagram_buffers = config_.plan->http == HttpVersion::kHttp3
                                ? std::bit_ceil(std::clamp<uint32_t>(n, 4, 64))
                                : 0,
        .flag_waiting_work = true};  // For the unread check (core/run/unread_sampler.h).
    std::vector<net::TlsPeer> peers = {{.host = plan.url.host, .tls = plan.url.tls}};
    for (size_t o = 1; o < plan.origins.size(); ++o) {
      peers.push_back({.host = plan.origins[o].url.host, .tls = plan.origins[o].url.tls});
    }
    URINGLOAD_ASSIGN_OR_RETURN(loop_, net::MakeWorkerLoop(options, plan.tls, std::move(peers)));
  }

  connections_ = std::vector<Connection>(n);
  if (plan.flow != nullptr) {
    FlowHost* host = this;  // A private base: converted here, where it is accessible.
    flows_.emplace(plan, config_.templates, std::span(connections_), host, stats_, &loop_->timers(),
                   &completions_at_ns_, &draining_, &rows_);
  }
  bool uses_rows = std::any_of(config_.templates.begin(), config_.templates.end(),
                               [](const proto::RequestTemplate& t) { return t.uses_fields(); });
  if (uses_rows && plan.data != nullptr) rows_.emplace(plan.data.get());
  pending_storage_.resize(static_cast<size_t>(n) * plan.pipeline);
  for (uint32_t i = 0; i < n; ++i) {
    Connection& c = connections_[i];
    c.slot = i;
    c.timer.owner = i;
    c.pending = std::span(pending_storage_).subspan(size_t{i} * plan.pipeline, plan.pipeline);
    if (i >= config_.connections) c.origin = kNoOrigin;  // Bound to the origin a step needs.
  }
  retry_.reserve(pending_storage_.size());
  listed_.reserve(n);
  origin_ns_ = config_.start_ns != 0 ? config_.start_ns : loop_->Now();
  if (plan.rate.has_value()) {
    ArrivalSchedule schedule =
        plan.replay_offsets != nullptr
            ? ArrivalSchedule(plan.replay_offsets)
            : ArrivalSchedule(*plan.rate, absl::ToDoubleSeconds(plan.ramp), ArrivalOf(plan));
    pacer_ = RequestPacer(schedule, config_.index, plan.threads, plan.requests, origin_ns_);
    wake_margin_ =
        WakeMargin(static_cast<int64_t>(std::min(1e9 * plan.threads / *plan.rate, 1e18)));
  }
  unstamped_sends_.reserve(n);
  queued_flushes_.reserve(n);
  opener_.emplace(plan, config_.first_connection, std::span(connections_), loop_.get(), &drivers_,
                  stats_, connect_timeout_ns_, &started_ns_);
  if (plan.streams) {
    streams_.emplace(plan.stream, pending_storage_.size(), stats_, &completions_at_ns_,
                     pacer_.open(), plan.llm.has_value() ? &*plan.llm : nullptr);
  }
  env_ = {.plan = &plan,
          .stats = stats_,
          .loop = loop_.get(),
          .now = &completions_at_ns_,
          .users = flows_.has_value() ? flows_->users() : std::span<FlowUser>(),
          .templates = config_.templates,
          .connections = n,
          .timeout_ns = timeout_ns_,
          .connect_timeout_ns = connect_timeout_ns_,
          .open_model = pacer_.open(),
          .warmup_ns = warmup_ns_,
          .origin_ns = origin_ns_,
          .unstamped = &unstamped_sends_,
          .streams = streams_.has_value() ? &*streams_ : nullptr};
  drivers_ = Drivers(this, env_);
  return absl::OkStatus();
}

absl::Status Worker::Run() {
  URINGLOAD_RETURN_IF_ERROR(Setup());
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
    loop_->timers().Advance(now, [this, now](net::TimerNode* node) { OnTimer(node, now); });
    if (flows_.has_value()) flows_->FlushWakes();
    // After the timers: a step sent when its user's think ended goes out stamped now.
    unsigned sends = StampQueuedSends(now);
    URINGLOAD_RETURN_IF_ERROR(SubmitAndWait(now, sends));
    uint64_t handled = completions_handled_;
    DrainCompletions();
    // A poll that found nothing to do was idle time, not work (the busy share).
    if (polling_ && sends == 0 && completions_handled_ == handled) {
      polled_ns_ += completions_at_ns_ - now;
    }
    opener_->AdmitQueued();
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
  if (flows_.has_value()) flows_->FlushWakes();
  for (size_t i = 0; i < queued_flushes_.size(); ++i) {  // A flush may fail one, queueing none.
    Connection& c = connections_[queued_flushes_[i]];
    c.flush_queued = false;
    // It may have ended, or even connected again, since: only a live driver has bytes to send.
    if (c.driver != nullptr &&
        (c.state == ConnState::kActive || c.state == ConnState::kConnecting)) {
      c.driver->Flush(c);
    }
  }
  queued_flushes_.clear();
}

bool Worker::DeferFlush(Connection& c) {
  if (!in_drain_) return false;
  if (!c.flush_queued) {
    c.flush_queued = true;
    queued_flushes_.push_back(c.slot);
  }
  return true;
}

// Requests queued since the last submit go out with the next one: their latency and
// timeout start now, with one clock read for all of them. Returns how many there were.
unsigned Worker::StampQueuedSends(int64_t now) {
  auto count = static_cast<unsigned>(unstamped_sends_.size());
  for (uint32_t slot : unstamped_sends_) {
    Connection& c = connections_[slot];
    if (c.state != ConnState::kActive) continue;  // Ended before the submit.
    c.driver->Stamp(c, now);
  }
  unstamped_sends_.clear();
  return count;
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
    if (flows_.has_value()) flows_->CutThinking();
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
      while (c.count > 0) FinishWaiting(c, Outcome::kTimeout, ECANCELED);
      c.state = ConnState::kDone;
      --live_;
    } else if (c.state != ConnState::kClosing) {
      Fail(c, Outcome::kTimeout, ECANCELED);
    }
  }
  if (flows_.has_value()) flows_->DropRetries();
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
  if (c.driver != nullptr) c.driver->OnClose(c);
  if (c.state == ConnState::kActive) stats_->ConnectionClosed();
  if (c.state == ConnState::kConnecting) opener_->Leave(c);
  c.state = ConnState::kClosing;
  loop_->Close(c.slot);
}

// No request will come for `c`: open, it closes; idle, it is done. A flow user's first
// connection takes its others with it (those without a step: one ends first).
void Worker::Retire(Connection& c) {
  if (c.state == ConnState::kActive) {
    Close(c);
  } else if (c.state == ConnState::kIdle) {
    c.state = ConnState::kDone;
    --live_;
  }
  if (flows_.has_value()) flows_->RetireOthers(c);
}

// The one way a failure leaves a connection: every request in flight on it ends with
// `outcome` (`error`: its errno, or for a parse error its ParseFailure), then it closes.
void Worker::Fail(Connection& c, Outcome outcome, int error) {
  if (c.state == ConnState::kActive) {
    c.driver->FailAll(c, outcome, error);
  } else {
    while (c.count > 0) FinishWaiting(c, outcome, error);
  }
  Close(c);
}

void Worker::FinishWaiting(Connection& c, Outcome outcome, int error) {
  URINGLOAD_CHECK(c.state != ConnState::kActive && c.count > 0, "slot %u state %d count %u", c.slot,
                  static_cast<int>(c.state), c.count);
  PendingRequest r = c.oldest();
  outcome = RecordEnd(c, r, outcome, error, {});
  c.PopOldest();
  AfterEnd(c, r, outcome);
}

}  // namespace uringload::core
