#include "core/run/engine.h"

#include <sys/resource.h>

#include <algorithm>
#include <utility>

#include "core/cpu_pinning.h"
#include "net/base/status_macros.h"
#include "net/clock.h"

namespace uringload::core {

// The worker slots (and their stats) exist from construction on and never move, so
// Snapshot() may run on another thread (a scrape) before, during and after Start().
Engine::Engine(const RunPlan& plan)
    : plan_(plan),
      cpus_(plan.cpus.empty() ? AllowedCpus() : plan.cpus),
      source_(plan.requests),
      workers_(plan.threads) {
  for (WorkerSlot& slot : workers_) {
    slot.stats =
        std::make_unique<WorkerStats>(plan.targets.size(), plan.rate.has_value(), plan.target_of);
  }
  std::vector<WorkerStats*> stats;
  for (WorkerSlot& slot : workers_) stats.push_back(slot.stats.get());
  unread_ = std::make_unique<UnreadSampler>(std::move(stats), plan.batch_window_max);
}

Engine::~Engine() {
  RequestStop();
  for (WorkerSlot& slot : workers_) slot.thread.Join();
  unread_->Stop();
}

// Small blocks when requests are few per connection, so every connection gets work at the
// start; up to 64 to keep the shared counter cold on long runs.
uint64_t Engine::BlockSize() const {
  if (!plan_.requests.has_value()) return 16;
  uint64_t per_connection = *plan_.requests / (4ull * plan_.concurrency);
  return std::clamp<uint64_t>(per_connection, 1, 64);
}

absl::Status Engine::Start() {
  for (size_t t = 0; t < plan_.targets.size(); ++t) {
    for (size_t a = 0; a < plan_.addresses.size(); ++a) {
      URINGLOAD_ASSIGN_OR_RETURN(
          proto::RequestTemplate tmpl,
          proto::RequestTemplate::Build(plan_.RequestFor(t, a), plan_.columns()));
      templates_.push_back(std::move(tmpl));
    }
  }
  // --start-at: the workers set up now and begin at the planned moment, on the monotonic
  // clock (the wall clock only says when that moment is).
  absl::Time now = absl::Now();
  int64_t start_ns = net::MonotonicNanos();
  started_at_ = now;
  if (plan_.start_at.has_value() && *plan_.start_at > now) {
    started_at_ = *plan_.start_at;
    start_ns += absl::ToInt64Nanoseconds(*plan_.start_at - now);
  }
  started_at_ns_.store(absl::ToUnixNanos(started_at_), std::memory_order_release);
  int64_t deadline_ns = 0;
  if (plan_.duration.has_value()) {
    deadline_ns = start_ns + absl::ToInt64Nanoseconds(*plan_.duration);
  }
  for (uint32_t i = 0; i < plan_.threads; ++i) {
    WorkerConfig config{
        .plan = &plan_,
        .templates = templates_,
        .connections = ConnectionsForWorker(plan_.concurrency, plan_.threads, i),
        .first_connection = FirstConnectionOfWorker(plan_.concurrency, plan_.threads, i),
        .index = i,
        .start_ns = start_ns,
        .deadline_ns = deadline_ns,
        .wait_for_start = plan_.start_at.has_value(),
        .block_size = BlockSize()};
    WorkerSlot& slot = workers_[i];
    slot.worker = std::make_unique<Worker>(config, &source_, slot.stats.get(), &stop_);
    slot.thread.Start(
        CpuOfWorker(plan_.cpus, i), [&slot] { return slot.worker->Run(); },  // Makes its ring.
        [this, &slot](const absl::Status& status) {
          if (!status.ok()) RequestStop();  // The others finish what they started.
          slot.finished_at = absl::Now();
          finished_.fetch_add(1, std::memory_order_release);
        });
  }
  unread_->Start();
  return absl::OkStatus();
}

absl::Duration Engine::Elapsed() const {
  int64_t started_ns = started_at_ns_.load(std::memory_order_acquire);
  if (started_ns == 0) return absl::ZeroDuration();
  absl::Time started = absl::FromUnixNanos(started_ns);
  if (!Done()) return std::max(absl::Now() - started, absl::ZeroDuration());  // --start-at wait.
  absl::Time ended = started;
  for (const WorkerSlot& slot : workers_) ended = std::max(ended, slot.finished_at);
  return ended - started;
}

RunStats Engine::Snapshot() const {
  RunStats merged;
  for (const WorkerSlot& slot : workers_) merged.Merge(slot.stats->Snapshot());
  GeneratorStats& g = merged.generator;
  g.workers = plan_.threads;
  g.cpus = FormatCpuList(cpus_);
  g.cpu_count = static_cast<uint32_t>(cpus_.size());
  CgroupThrottleMeter::Reading throttled = throttle_.Since();
  g.throttled_ns = throttled.count.throttled_ns;
  g.throttled_periods = throttled.count.periods;
  g.throttled_cgroup = throttled.cgroup;
  double elapsed_ns = absl::ToDoubleNanoseconds(Elapsed());
  if (elapsed_ns > 0) g.throttled_share = std::min(1.0, g.throttled_ns / elapsed_ns);
  return merged;
}

absl::StatusOr<RunResult> Engine::Wait() {
  absl::Time ended_at = started_at_;
  for (WorkerSlot& slot : workers_) {
    slot.thread.Join();
    ended_at = std::max(ended_at, slot.finished_at);
  }
  unread_->Stop();
  for (WorkerSlot& slot : workers_) {
    if (!slot.thread.status().ok()) return slot.thread.status();
  }
  RunResult result;
  result.stats = Snapshot();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // Everything the client did, its reporter too.
  auto nanos = [](const timeval& t) {
    return uint64_t(t.tv_sec) * 1'000'000'000 + t.tv_usec * 1000;
  };
  result.stats.generator.cpu_user_ns = nanos(usage.ru_utime);
  result.stats.generator.cpu_system_ns = nanos(usage.ru_stime);
  result.duration = ended_at - started_at_;
  result.started_at = started_at_;
  result.ended_at = ended_at;
  result.interrupted = stop_.load(std::memory_order_relaxed);
  return result;
}

void OkSeries::Add(uint64_t ok_total) {
  pending_ += ok_total - last_total_;
  last_total_ = ok_total;
  ++seen_;
  if (++pending_seconds_ < width_) return;
  counts_.push_back(pending_);
  pending_ = pending_seconds_ = 0;
  if (counts_.size() < kMaxIntervals) return;
  for (size_t i = 0; i < counts_.size() / 2; ++i) counts_[i] = counts_[2 * i] + counts_[2 * i + 1];
  counts_.resize(counts_.size() / 2);
  width_ *= 2;
}

void OkSeries::Finish(absl::Duration duration, uint64_t ok_total) {
  while (duration >= absl::Seconds(next_end_seconds())) Add(ok_total);
}

void OkSeries::MoveInto(RunResult* result) {
  result->ok_per_interval = std::move(counts_);
  result->interval_seconds = static_cast<double>(width_);
}

}  // namespace uringload::core
