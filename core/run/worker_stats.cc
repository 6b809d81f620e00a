#include "core/run/worker_stats.h"

#include <algorithm>

#include "core/cpu_contention.h"
#include "net/clock.h"

namespace uringload::core {

uint64_t RunStats::completed() const {
  uint64_t total = 0;
  for (uint64_t n : outcomes) total += n;
  return total;
}

uint64_t TargetStats::requests() const {
  uint64_t total = 0;
  for (uint64_t n : outcomes) total += n;
  return total;
}

uint64_t TargetStats::non_2xx() const {
  uint64_t total = 0;
  for (size_t code = 0; code < status_codes.size(); ++code) {
    if (code < 200 || code > 299) total += status_codes[code];
  }
  return total;
}

void TargetStats::Merge(const TargetStats& other) {
  for (size_t i = 0; i < outcomes.size(); ++i) outcomes[i] += other.outcomes[i];
  for (size_t i = 0; i < status_codes.size(); ++i) status_codes[i] += other.status_codes[i];
  latency.Merge(other.latency);
  for (size_t i = 0; i < check_causes.size(); ++i) check_causes[i] += other.check_causes[i];
  aborted += other.aborted;
}

void GeneratorStats::Merge(const GeneratorStats& other) {
  schedule_lag.Merge(other.schedule_lag);
  unsent += other.unsent;
  busy_ns += other.busy_ns;
  wall_ns += other.wall_ns;
  busiest_share = std::max(busiest_share, other.busiest_share);
  cpu_user_ns += other.cpu_user_ns;
  cpu_system_ns += other.cpu_system_ns;
  run_queue_ns += other.run_queue_ns;
  run_queue_longest_ns = std::max(run_queue_longest_ns, other.run_queue_longest_ns);
  run_queue_share = std::max(run_queue_share, other.run_queue_share);
  unread_ns += other.unread_ns;
  unread_longest_ns = std::max(unread_longest_ns, other.unread_longest_ns);
  unread_share = std::max(unread_share, other.unread_share);
  if (other.throttled_share > throttled_share) throttled_cgroup = other.throttled_cgroup;
  throttled_ns += other.throttled_ns;
  throttled_periods += other.throttled_periods;
  throttled_share = std::max(throttled_share, other.throttled_share);
  // Workers of one process add up; a merge of shards keeps the most crowded shard's CPUs.
  if (cpus.empty() || cpus == other.cpus) {
    workers += other.workers;
    cpus = other.cpus;
    cpu_count = other.cpu_count;
  } else if (uint64_t{other.workers} * std::max(cpu_count, 1u) >
             uint64_t{workers} * std::max(other.cpu_count, 1u)) {
    workers = other.workers;
    cpus = other.cpus;
    cpu_count = other.cpu_count;
  }
}

void WorkerStats::WorkerStarted(pid_t tid, std::optional<uint64_t> run_queue_ns, int64_t now_ns) {
  Write(started_ns_, static_cast<uint64_t>(now_ns));
  if (!run_queue_ns.has_value()) return;
  Write(run_queue_at_start_, *run_queue_ns);
  tid_.store(tid, std::memory_order_release);
}

void WorkerStats::WorkerFinished(int64_t busy_ns, int64_t wall_ns,
                                 std::optional<uint64_t> run_queue_ns) {
  uint64_t start = Read(run_queue_at_start_);
  if (run_queue_ns.has_value() && *run_queue_ns >= start) {
    Write(run_queue_final_ns_, *run_queue_ns - start);
  }
  Write(busy_ns_, static_cast<uint64_t>(std::max<int64_t>(busy_ns, 0)));
  Write(wall_ns_, static_cast<uint64_t>(std::max<int64_t>(wall_ns, 0)));
}

// A finished worker's wait is final; a running one's is read from its thread's schedstat
// now (the reporter's and scrapes' snapshots: never on the worker's hot path). The unread
// time is the sampler's latest.
void WorkerStats::SnapshotCpuWait(GeneratorStats& g) const {
  pid_t tid = tid_.load(std::memory_order_acquire);
  if (tid == 0) return;
  g.workers = 1;
  uint64_t wall = Read(wall_ns_);
  uint64_t wait = Read(run_queue_final_ns_);
  if (wall == 0) {  // Still running.
    std::optional<uint64_t> now = RunQueueNanosOfThread(tid);
    uint64_t start = Read(run_queue_at_start_);
    if (now.has_value() && *now >= start) wait = *now - start;
    int64_t ran = net::MonotonicNanos() - static_cast<int64_t>(Read(started_ns_));
    wall = static_cast<uint64_t>(std::max<int64_t>(ran, 0));
  }
  g.run_queue_ns = g.run_queue_longest_ns = wait;
  g.unread_ns = Read(unread_ns_);
  g.unread_longest_ns = Read(unread_longest_ns_);
  if (wall > 0) {
    g.run_queue_share = std::min(1.0, static_cast<double>(wait) / wall);
    g.unread_share = std::min(1.0, static_cast<double>(g.unread_ns) / wall);
  }
}

uint64_t RunStats::grpc_calls() const {
  uint64_t total = 0;
  for (uint64_t n : grpc_status) total += n;
  return total;
}

uint64_t RunStats::grpc_errors() const { return grpc_calls() - grpc_status[0]; }

void RunStats::Merge(const RunStats& other) {
  MergeCounters<RunStats>(kRunCounters, *this, other);
  for (size_t i = 0; i < outcomes.size(); ++i) outcomes[i] += other.outcomes[i];
  for (size_t i = 0; i < status_codes.size(); ++i) status_codes[i] += other.status_codes[i];
  for (size_t i = 0; i < grpc_status.size(); ++i) grpc_status[i] += other.grpc_status[i];
  for (size_t o = 0; o < causes.size(); ++o) {
    for (size_t e = 0; e < kErrnoSlots; ++e) causes[o][e] += other.causes[o][e];
  }
  latency.Merge(other.latency);
  latency_uncorrected.Merge(other.latency_uncorrected);
  generator.Merge(other.generator);
  MergeHistograms<RunStats>(kRunHistograms, *this, other);
  if (other.tls_handshakes > 0) {
    tls_version = other.tls_version;
    tls_cipher = other.tls_cipher;
  }
  if (target_ok.size() < other.target_ok.size()) {
    target_ok.resize(other.target_ok.size());
    target_failed.resize(other.target_failed.size());
  }
  for (size_t t = 0; t < other.target_ok.size(); ++t) {
    target_ok[t] += other.target_ok[t];
    target_failed[t] += other.target_failed[t];
  }
  if (by_target.size() < other.by_target.size()) by_target.resize(other.by_target.size());
  for (size_t t = 0; t < other.by_target.size(); ++t) by_target[t].Merge(other.by_target[t]);
}

WorkerStats::WorkerStats(size_t targets, bool open_model, std::vector<uint32_t> target_of)
    : targets_(targets),
      target_ok_(new SingleWriterCounter[targets]()),
      target_failed_(new SingleWriterCounter[targets]()),
      target_of_(std::move(target_of)),
      open_model_(open_model) {
  for (uint32_t t : target_of_) tracked_targets_ = std::max<size_t>(tracked_targets_, t + 1);
  if (tracked_targets_ > 0) by_target_.reset(new TargetCounters[tracked_targets_]());
}

void WorkerStats::ConnectionOpened() {
  Add(counters_.Of<&RunStats::connections_opened>());
  counters_.Up<&RunStats::connections_open, &RunStats::connections_peak>();
}

void WorkerStats::TlsConnected(const net::TlsHandshake& tls) {
  histograms_.Of<&RunStats::connect>().Record(static_cast<uint64_t>(tls.tcp_ns));
  histograms_.Of<&RunStats::tls_handshake>().Record(static_cast<uint64_t>(tls.handshake_ns));
  tls_version_.store(tls.version, std::memory_order_relaxed);
  tls_cipher_.store(tls.cipher, std::memory_order_relaxed);
  if (tls.resumed) Add(counters_.Of<&RunStats::tls_resumed>());
  Add(counters_.Of<&RunStats::tls_handshakes>());
}

RunStats WorkerStats::Snapshot() const {
  RunStats s;
  // Outcomes (the histogram holds the ok ones) are read before `started` so a snapshot never
  // shows more ended than started.
  s.latency = latency_.Snapshot();
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    s.outcomes[i] = Read(outcomes_[i]);
  }
  s.outcomes[static_cast<size_t>(Outcome::kOk)] = s.latency.count;
  s.latency_uncorrected = open_model_ ? uncorrected_.Snapshot() : s.latency;
  counters_.CopyTo(s);
  for (size_t i = 0; i < status_codes_.size(); ++i) {
    s.status_codes[i] = Read(status_codes_[i]);
  }
  for (size_t i = 0; i < grpc_status_.size(); ++i) s.grpc_status[i] = Read(grpc_status_[i]);
  if (open_model_) s.generator.schedule_lag = schedule_lag_.Snapshot();
  s.generator.unsent = Read(unsent_);
  s.generator.busy_ns = Read(busy_ns_);
  s.generator.wall_ns = Read(wall_ns_);
  if (s.generator.wall_ns > 0) {
    s.generator.busiest_share = static_cast<double>(s.generator.busy_ns) / s.generator.wall_ns;
  }
  SnapshotCpuWait(s.generator);
  histograms_.CopyTo(s);
  s.tls_version = tls_version_.load(std::memory_order_relaxed);
  s.tls_cipher = tls_cipher_.load(std::memory_order_relaxed);
  s.target_ok.resize(targets_);
  s.target_failed.resize(targets_);
  for (size_t t = 0; t < targets_; ++t) {
    s.target_ok[t] = Read(target_ok_[t]);
    s.target_failed[t] = Read(target_failed_[t]);
  }
  for (size_t o = 0; o < causes_.size(); ++o) {
    for (size_t e = 0; e < kErrnoSlots; ++e) {
      s.causes[o][e] = Read(causes_[o][e]);
    }
  }
  s.by_target.resize(tracked_targets_);
  for (size_t t = 0; t < tracked_targets_; ++t) {
    TargetStats& out = s.by_target[t];
    const TargetCounters& in = by_target_[t];
    for (size_t o = 0; o < kOutcomeCount; ++o) out.outcomes[o] = Read(in.outcomes[o]);
    for (size_t c = 0; c < kStatusCodeSlots; ++c) out.status_codes[c] = Read(in.status_codes[c]);
    out.latency = in.latency.Snapshot();
    out.outcomes[static_cast<size_t>(Outcome::kOk)] = out.latency.count;
    for (size_t c = 0; c < kCheckFailureCount; ++c) out.check_causes[c] = Read(in.check_causes[c]);
    out.aborted = Read(in.aborted);
  }
  return s;
}

}  // namespace uringload::core
