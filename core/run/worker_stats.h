// WorkerStats: one worker's counters and latency histogram, written only by that worker and
// read at any time by the reporter (relaxed atomics). RunStats is a plain, mergeable copy.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/latency_histogram.h"
#include "core/outcome.h"
#include "core/single_writer.h"
#include "net/event_loop.h"
#include "net/tls_errors.h"
#include "proto/grpc_status.h"

namespace uringload::core {

inline constexpr size_t kStatusCodeSlots = 1000;  // Codes 0-999; llhttp accepts 3 digits.
// Causes of failed requests, by errno (0 = no errno: a parse error or a request timeout), or
// a TLS cause (net/tls_errors.h) above every errno, or an HTTP/2 error code above those.
inline constexpr size_t kErrnoSlots = kCauseEnd;
using CauseCounts = std::array<std::array<uint64_t, kErrnoSlots>, kOutcomeCount>;

// How well the client kept up (its own numbers, not the server's): the verdict on them is
// core/run/generator_check.h's.
struct GeneratorStats {
  // Open model: from each send's due time to its send, for sends that had a connection ready
  // (those that waited for one are RunStats::late_starts; that wait is the server's).
  HistogramSnapshot schedule_lag;
  uint64_t unsent = 0;       // Open model: due before the run stopped taking requests, never sent.
  uint64_t busy_ns = 0;      // Workers' CPU time, less their polls that found nothing to do,
  uint64_t wall_ns = 0;      // over the time they ran (both summed over workers).
  double busiest_share = 0;  // The highest busy_ns / wall_ns of one worker.
  uint64_t cpu_user_ns = 0;  // The whole process (every shard's, once merged).
  uint64_t cpu_system_ns = 0;
  // What the workers could not see (core/cpu_contention.h): the time they were runnable but
  // waited for a CPU (summed over workers), the longest wait of one worker and the highest
  // share of one worker's run it was; and the time a cgroup's CPU quota throttled the process
  // (summed over shards) with the highest share of a run. Live in snapshots, not only at the end.
  uint64_t run_queue_ns = 0;
  uint64_t run_queue_longest_ns = 0;
  double run_queue_share = 0;
  uint64_t throttled_ns = 0;
  uint64_t throttled_periods = 0;
  double throttled_share = 0;
  std::string throttled_cgroup;  // The cgroup whose quota throttled it (a merge: a shard's).
  // Completions (responses, mostly) that waited unread for their worker longer than a loop
  // or a batch window takes (core/run/unread_meter.h): the time summed over workers, the
  // longest wait, the highest share of one worker's run.
  uint64_t unread_ns = 0;
  uint64_t unread_longest_ns = 0;
  double unread_share = 0;
  // The workers and the CPUs they could run on (a merge: the shard with most workers a CPU).
  uint32_t workers = 0;
  std::string cpus;  // As taskset writes them: "0-1".
  uint32_t cpu_count = 0;

  void Merge(const GeneratorStats& other);
};

// One target's results (a targets line, or the lines of one name=): outcomes, status codes
// and the latency of its ok requests.
struct TargetStats {
  std::array<uint64_t, kOutcomeCount> outcomes{};
  std::array<uint64_t, kStatusCodeSlots> status_codes{};
  HistogramSnapshot latency;
  // Flows, where each target is a step: its check_failed by CheckFailure, and the iterations
  // aborted at it (its request failed or missed a check).
  std::array<uint64_t, kCheckFailureCount> check_causes{};
  uint64_t aborted = 0;
  uint64_t requests() const;
  uint64_t non_2xx() const;  // Responses with a status outside 200-299.
  void Merge(const TargetStats& other);
};

struct RunStats {
  uint64_t started = 0;
  std::array<uint64_t, kOutcomeCount> outcomes{};
  std::array<uint64_t, kStatusCodeSlots> status_codes{};
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  uint64_t connections_opened = 0;
  uint64_t connections_open = 0;
  uint64_t connections_peak = 0;  // Sum of per-worker peaks: an upper bound of the true peak.
  uint64_t ramp_ns = 0;           // Until every connection's first connect ended (slowest worker).
  uint64_t start_skew_ns = 0;     // --start-at: how late the latest worker began.
  uint64_t preconnected = 0;      // --preconnect: connections open when the run began.
  CauseCounts causes{};           // [outcome][errno] for every outcome but ok.
  // Latency of ok requests: from the intended start in the open model (-R), which counts the
  // time a request waited for a connection; from the send otherwise.
  HistogramSnapshot latency;
  HistogramSnapshot latency_uncorrected;  // From the send, always (== latency when closed).
  uint64_t late_starts = 0;               // Open model: due while every connection was busy.
  // Requests started during --warmup: sent, then kept out of everything above.
  uint64_t warmup_started = 0;
  uint64_t warmup_completed = 0;
  // Flows (--flow): iterations begun, those that ran every step ok, and those aborted at a
  // step (the rest were cut by the run's end); how long the completed ones took.
  uint64_t iterations_started = 0;
  uint64_t iterations_completed = 0;
  uint64_t iterations_aborted = 0;
  HistogramSnapshot iteration_duration;
  HistogramSnapshot connect;        // TCP connect times (connect call to established).
  HistogramSnapshot tls_handshake;  // TLS handshakes, from the TCP connection to their end.
  uint64_t tls_handshakes = 0;
  uint64_t tls_resumed = 0;      // Of them, resumed sessions.
  const char* tls_version = "";  // Of the last handshake (OpenSSL's static strings).
  const char* tls_cipher = "";
  uint64_t connections_http2 = 0;  // Of connections_opened, those that spoke HTTP/2.
  uint64_t connections_http3 = 0;  // And those that spoke HTTP/3 (over QUIC).
  // HTTP/3: the UDP datagrams (QUIC packets) sent and received, and those of the sent that
  // QUIC declared lost (their frames went again in new packets, counted in quic_packets_sent).
  uint64_t quic_packets_sent = 0;
  uint64_t quic_packets_received = 0;
  uint64_t quic_packets_lost = 0;
  // --0rtt: reconnects that sent their requests in 0-RTT, and those the server took.
  uint64_t quic_zero_rtt_attempted = 0;
  uint64_t quic_zero_rtt_accepted = 0;
  uint64_t connections_http1() const {
    return connections_opened - connections_http2 - connections_http3;
  }
  // HTTP/2: requests the server refused unprocessed (REFUSED_STREAM, above a GOAWAY's last
  // stream), sent again; each still ends in one outcome.
  uint64_t retried = 0;
  // HTTP/2: the fewest concurrent streams a server's SETTINGS allowed when below -p (0: -p
  // was never capped).
  uint64_t streams_capped_at = 0;
  // gRPC (--grpc): the ok calls by grpc-status code (OK 0 to UNAUTHENTICATED 16).
  std::array<uint64_t, proto::kGrpcStatusCount> grpc_status{};
  uint64_t grpc_messages = 0;  // The messages of the ok calls' responses.
  // From each call's start (as `latency`) to its response's first whole message.
  HistogramSnapshot grpc_first_message;
  uint64_t grpc_calls() const;   // Ok calls: the sum of grpc_status.
  uint64_t grpc_errors() const;  // Of them, those with a status other than OK.
  GeneratorStats generator;
  std::vector<uint64_t> target_ok;      // Per target request (--targets line).
  std::vector<uint64_t> target_failed;  // Ended with any outcome but ok.
  std::vector<TargetStats> by_target;   // Per target (RunPlan::target_names), when tracked.

  uint64_t completed() const;  // Requests with an outcome.
  uint64_t in_flight() const { return started - completed(); }
  uint64_t outcome(Outcome o) const { return outcomes[static_cast<size_t>(o)]; }
  void Merge(const RunStats& other);
};

class WorkerStats {
 public:
  // `targets`: how many target requests the plan has; `open_model`: record the uncorrected
  // latency apart (closed, it is the same as the latency); `target_of`: each target request's
  // target in the per-target results (empty: none kept).
  explicit WorkerStats(size_t targets = 1, bool open_model = false,
                       std::vector<uint32_t> target_of = {});

  void RequestStarted() { Add(started_); }
  // A request that failed; `error` is the errno behind it (0 if none), kept for the summary's
  // error details. `status`: a complete response's (check_failed), counted with the others'.
  void RequestFailed(Outcome o, int error = 0, uint32_t target = 0, int status = 0) {
    size_t slot = error > 0 && static_cast<size_t>(error) < kErrnoSlots ? error : 0;
    Add(outcomes_[static_cast<size_t>(o)]);
    Add(causes_[static_cast<size_t>(o)][slot]);
    Add(target_failed_[target]);
    size_t code = static_cast<size_t>(status) < kStatusCodeSlots ? status : 0;
    if (status != 0) Add(status_codes_[code]);
    if (!target_of_.empty()) {
      TargetCounters& t = by_target_[target_of_[target]];
      Add(t.outcomes[static_cast<size_t>(o)]);
      if (status != 0) Add(t.status_codes[code]);
      if (o == Outcome::kCheckFailed && error < kCheckFailureCount) Add(t.check_causes[slot]);
    }
  }
  // Flows: an iteration began; one ran every step ok in `duration_ns`; one ended at the
  // step that is target `target`.
  void IterationStarted() { Add(iterations_started_); }
  void IterationCompleted(int64_t duration_ns) {
    Add(iterations_completed_);
    iteration_duration_.Record(static_cast<uint64_t>(duration_ns));
  }
  void IterationAborted(uint32_t target) {
    Add(iterations_aborted_);
    if (!target_of_.empty()) Add(by_target_[target_of_[target]].aborted);
  }
  // A request that ended `ok`. The latency histogram is the ok counter: a snapshot takes the
  // ok count from the same bucket reads as the histogram, so a scrape's `_count`, its `+Inf`
  // bucket and outcome="ok" are always equal (separate counters read a moment apart were
  // seen 60 apart: _count 106,637 with +Inf 106,577).
  void RequestSucceeded(int status, uint64_t latency_ns, uint64_t uncorrected_ns = 0,
                        uint32_t target = 0) {
    Add(status_codes_[static_cast<size_t>(status) < kStatusCodeSlots ? status : 0]);
    Add(target_ok_[target]);
    if (open_model_) uncorrected_.Record(uncorrected_ns);
    latency_.Record(latency_ns);
    if (!target_of_.empty()) {
      TargetCounters& t = by_target_[target_of_[target]];
      Add(t.status_codes[static_cast<size_t>(status) < kStatusCodeSlots ? status : 0]);
      t.latency.Record(latency_ns);  // Its count is the target's ok (as for the run's).
    }
  }
  void LateStart() { Add(late_starts_); }
  void ScheduleLag(int64_t lag_ns) { schedule_lag_.Record(static_cast<uint64_t>(lag_ns)); }
  void Unsent(uint64_t n) { Write(unsent_, n); }
  // The worker's thread `tid` began at `now_ns` (monotonic), having waited `run_queue_ns` for
  // a CPU so far (none: the kernel keeps no count); snapshots read its wait while it runs.
  void WorkerStarted(pid_t tid, std::optional<uint64_t> run_queue_ns, int64_t now_ns);
  // The worker ran `wall_ns`, of which it was busy `busy_ns`; its thread's run-queue count
  // is now `run_queue_ns`.
  void WorkerFinished(int64_t busy_ns, int64_t wall_ns, std::optional<uint64_t> run_queue_ns);
  // The worker's ring flags word (net::EventLoop::WaitingWorkWord; null: none), published
  // once it started, and each drain of its completions: what the unread sampler reads.
  void WatchRing(const unsigned* waiting_work_word) {
    waiting_work_word_.store(waiting_work_word, std::memory_order_release);
  }
  void Drained() { Add(drains_); }
  // The unread sampler's side (core/run/unread_sampler.h): the word (null: nothing to
  // sample), the drains, whether the worker finished, and what the sampler measured.
  const unsigned* waiting_work_word() const {
    return waiting_work_word_.load(std::memory_order_acquire);
  }
  uint64_t drains() const { return Read(drains_); }
  bool finished() const { return Read(wall_ns_) != 0; }
  void UnreadMeasured(uint64_t unread_ns, uint64_t longest_ns) {
    Write(unread_ns_, unread_ns);
    Write(unread_longest_ns_, longest_ns);
  }
  void Connected(int64_t connect_ns) { connect_.Record(static_cast<uint64_t>(connect_ns)); }
  void TlsConnected(const net::TlsHandshake& tls);
  void WarmupStarted() { Add(warmup_started_); }
  void WarmupCompleted() { Add(warmup_completed_); }
  void BytesSent(uint64_t n) { Add(bytes_sent_, n); }
  void BytesReceived(uint64_t n) { Add(bytes_received_, n); }
  void ConnectionOpened();
  void Http2Connected() { Add(connections_http2_); }
  void Http3Connected() { Add(connections_http3_); }
  void QuicPacketsSent(uint64_t n) { Add(quic_packets_sent_, n); }
  void QuicPacketsReceived(uint64_t n) { Add(quic_packets_received_, n); }
  void QuicPacketsLost(uint64_t n) { Add(quic_packets_lost_, n); }
  void QuicZeroRtt(bool accepted) {
    Add(quic_zero_rtt_attempted_);
    if (accepted) Add(quic_zero_rtt_accepted_);
  }
  void RequestRetried() { Add(retried_); }
  // An ok gRPC call ended with grpc-status `code` (0-16) after `messages` response messages.
  void GrpcFirstMessage(uint64_t latency_ns) { grpc_first_message_.Record(latency_ns); }
  void GrpcCallEnded(int code, uint64_t messages) {
    Add(grpc_status_[static_cast<size_t>(code)]);
    Add(grpc_messages_, messages);
  }
  void StreamsCapped(uint32_t cap) {
    if (Read(streams_capped_at_) == 0 || cap < Read(streams_capped_at_)) {
      Write(streams_capped_at_, cap);
    }
  }
  void ConnectionClosed() { Write(connections_open_, Read(connections_open_) - 1); }

  void RampFinished(uint64_t ns) { Write(ramp_ns_, ns); }
  void StartedLate(int64_t ns) { Write(start_skew_ns_, static_cast<uint64_t>(ns)); }
  void Preconnected(uint64_t connections) { Write(preconnected_, connections); }

  RunStats Snapshot() const;

 private:
  void SnapshotCpuWait(GeneratorStats& g) const;

  SingleWriterCounter started_{0};
  std::array<SingleWriterCounter, kOutcomeCount> outcomes_{};
  std::array<SingleWriterCounter, kStatusCodeSlots> status_codes_{};
  SingleWriterCounter bytes_sent_{0};
  SingleWriterCounter bytes_received_{0};
  SingleWriterCounter connections_opened_{0};
  SingleWriterCounter connections_open_{0};
  SingleWriterCounter connections_peak_{0};
  SingleWriterCounter ramp_ns_{0};
  SingleWriterCounter start_skew_ns_{0};
  SingleWriterCounter preconnected_{0};
  SingleWriterCounter connections_http2_{0};
  SingleWriterCounter connections_http3_{0};
  SingleWriterCounter quic_packets_sent_{0};
  SingleWriterCounter quic_packets_received_{0};
  SingleWriterCounter quic_packets_lost_{0};
  SingleWriterCounter quic_zero_rtt_attempted_{0};
  SingleWriterCounter quic_zero_rtt_accepted_{0};
  SingleWriterCounter retried_{0};
  SingleWriterCounter streams_capped_at_{0};
  std::array<SingleWriterCounter, proto::kGrpcStatusCount> grpc_status_{};
  SingleWriterCounter grpc_messages_{0};
  LatencyHistogram grpc_first_message_;
  std::array<std::array<SingleWriterCounter, kErrnoSlots>, kOutcomeCount> causes_{};
  SingleWriterCounter late_starts_{0};
  SingleWriterCounter unsent_{0};
  SingleWriterCounter busy_ns_{0};
  SingleWriterCounter wall_ns_{0};
  std::atomic<pid_t> tid_{0};  // 0: no run-queue count (not started, or none kept).
  SingleWriterCounter run_queue_at_start_{0};
  SingleWriterCounter started_ns_{0};
  SingleWriterCounter run_queue_final_ns_{0};  // Once finished.
  std::atomic<const unsigned*> waiting_work_word_{nullptr};
  SingleWriterCounter drains_{0};
  SingleWriterCounter unread_ns_{0};  // Written by the unread sampler.
  SingleWriterCounter unread_longest_ns_{0};
  SingleWriterCounter warmup_started_{0};
  SingleWriterCounter warmup_completed_{0};
  SingleWriterCounter iterations_started_{0};
  SingleWriterCounter iterations_completed_{0};
  SingleWriterCounter iterations_aborted_{0};
  LatencyHistogram iteration_duration_;
  size_t targets_;
  std::unique_ptr<SingleWriterCounter[]> target_ok_;
  std::unique_ptr<SingleWriterCounter[]> target_failed_;
  struct TargetCounters {
    std::array<SingleWriterCounter, kOutcomeCount> outcomes{};  // All but ok.
    std::array<SingleWriterCounter, kStatusCodeSlots> status_codes{};
    LatencyHistogram latency;
    std::array<SingleWriterCounter, kCheckFailureCount> check_causes{};
    SingleWriterCounter aborted{0};
  };
  std::vector<uint32_t> target_of_;
  std::unique_ptr<TargetCounters[]> by_target_;
  size_t tracked_targets_ = 0;
  bool open_model_;
  LatencyHistogram latency_;
  LatencyHistogram uncorrected_;
  LatencyHistogram connect_;
  LatencyHistogram handshake_;
  LatencyHistogram schedule_lag_;
  SingleWriterCounter tls_handshakes_{0};
  SingleWriterCounter tls_resumed_{0};
  std::atomic<const char*> tls_version_{""};
  std::atomic<const char*> tls_cipher_{""};
};

}  // namespace uringload::core
