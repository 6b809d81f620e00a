// WorkerStats: one worker's counters and latency histogram, written only by that worker and
// read at any time by the reporter (relaxed atomics). RunStats (core/run/run_stats.h) is a
// plain, mergeable copy; the single-number counters are kept by their row of
// core/run/run_counters.h.
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
#include "core/run/run_counters.h"
#include "core/run/run_histograms.h"
#include "core/run/run_stats.h"
#include "core/single_writer.h"
#include "net/event_loop.h"
#include "net/tls_errors.h"
#include "proto/grpc_status.h"

namespace uringload::core {

class WorkerStats {
 public:
  // `targets`: how many target requests the plan has; `open_model`: record the uncorrected
  // latency apart (closed, it is the same as the latency); `target_of`: each target request's
  // target in the per-target results (empty: none kept).
  explicit WorkerStats(size_t targets = 1, bool open_model = false,
                       std::vector<uint32_t> target_of = {});

  void RequestStarted() { Add(counters_.Of<&RunStats::started>()); }
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
  void IterationStarted() { Add(counters_.Of<&RunStats::iterations_started>()); }
  void IterationCompleted(int64_t duration_ns) {
    Add(counters_.Of<&RunStats::iterations_completed>());
    histograms_.Of<&RunStats::iteration_duration>().Record(static_cast<uint64_t>(duration_ns));
  }
  void IterationAborted(uint32_t target) {
    Add(counters_.Of<&RunStats::iterations_aborted>());
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
  // An ok request's response: its head came `head_ns` after the request's start (as the
  // latency's), its body's first byte `body_ns` after (none: it had no body).
  void ResponseArrived(uint64_t head_ns, std::optional<uint64_t> body_ns) {
    histograms_.Of<&RunStats::response_head>().Record(head_ns);
    if (body_ns) histograms_.Of<&RunStats::first_byte>().Record(*body_ns);
  }
  // --stream: an event arrived `ns` after its request's start (its first event) or after the
  // request's event before it; an ok response that carried events ended (`done`: with
  // data: [DONE]).
  void EventArrived(bool first, uint64_t ns) {
    Add(counters_.Of<&RunStats::stream_events>());
    if (first) {
      histograms_.Of<&RunStats::first_event>().Record(ns);
    } else {
      histograms_.Of<&RunStats::event_gap>().Record(ns);
    }
  }
  // --llm: a token (a delta with content) arrived `ns` after its request's start (its first)
  // or after the one before; an answer ended ok with `output` tokens (`input`: from usage).
  void TokenArrived(bool first, uint64_t ns) {
    if (first) {
      histograms_.Of<&RunStats::ttft>().Record(ns);
    } else {
      histograms_.Of<&RunStats::itl>().Record(ns);
    }
  }
  void AnswerCompleted(uint64_t output, std::optional<uint64_t> input, bool usage,
                       std::optional<uint64_t> tpot_ns, bool good) {
    Add(counters_.Of<&RunStats::llm_answers>());
    Add(counters_.Of<&RunStats::llm_output_tokens>(), output);
    if (input) Add(counters_.Of<&RunStats::llm_input_tokens>(), *input);
    if (usage) Add(counters_.Of<&RunStats::llm_usage>());
    if (good) Add(counters_.Of<&RunStats::llm_good>());
    if (tpot_ns) histograms_.Of<&RunStats::tpot>().Record(*tpot_ns);
  }
  void StreamCompleted(bool done) {
    Add(counters_.Of<&RunStats::stream_responses>());
    if (done) Add(counters_.Of<&RunStats::stream_done>());
  }
  void LateStart() { Add(counters_.Of<&RunStats::late_starts>()); }
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
  void Connected(int64_t connect_ns) {
    histograms_.Of<&RunStats::connect>().Record(static_cast<uint64_t>(connect_ns));
  }
  void TlsConnected(const net::TlsHandshake& tls);
  void WarmupStarted() { Add(counters_.Of<&RunStats::warmup_started>()); }
  void WarmupCompleted() { Add(counters_.Of<&RunStats::warmup_completed>()); }
  void BytesSent(uint64_t n) { Add(counters_.Of<&RunStats::bytes_sent>(), n); }
  void BytesReceived(uint64_t n) { Add(counters_.Of<&RunStats::bytes_received>(), n); }
  void ConnectionOpened();
  void Http2Connected() { Add(counters_.Of<&RunStats::connections_http2>()); }
  void Http3Connected() { Add(counters_.Of<&RunStats::connections_http3>()); }
  void QuicPacketsSent(uint64_t n) { Add(counters_.Of<&RunStats::quic_packets_sent>(), n); }
  void QuicPacketsReceived(uint64_t n) { Add(counters_.Of<&RunStats::quic_packets_received>(), n); }
  void QuicPacketsLost(uint64_t n) { Add(counters_.Of<&RunStats::quic_packets_lost>(), n); }
  void QuicZeroRtt(bool accepted) {
    Add(counters_.Of<&RunStats::quic_zero_rtt_attempted>());
    if (accepted) Add(counters_.Of<&RunStats::quic_zero_rtt_accepted>());
  }
  void RequestRetried() { Add(counters_.Of<&RunStats::retried>()); }
  // An ok gRPC call ended with grpc-status `code` (0-16) after `messages` response messages.
  void GrpcFirstMessage(uint64_t latency_ns) {
    histograms_.Of<&RunStats::grpc_first_message>().Record(latency_ns);
  }
  void GrpcCallEnded(int code, uint64_t messages) {
    Add(grpc_status_[static_cast<size_t>(code)]);
    Add(counters_.Of<&RunStats::grpc_messages>(), messages);
  }
  void StreamsCapped(uint32_t cap) {
    if (Read(counters_.Of<&RunStats::streams_capped_at>()) == 0 ||
        cap < Read(counters_.Of<&RunStats::streams_capped_at>())) {
      Write(counters_.Of<&RunStats::streams_capped_at>(), cap);
    }
  }
  void ConnectionClosed() { counters_.Down<&RunStats::connections_open>(); }

  void RampFinished(uint64_t ns) { Write(counters_.Of<&RunStats::ramp_ns>(), ns); }
  void StartedLate(int64_t ns) {
    Write(counters_.Of<&RunStats::start_skew_ns>(), static_cast<uint64_t>(ns));
  }
  void Preconnected(uint64_t connections) {
    Write(counters_.Of<&RunStats::preconnected>(), connections);
  }

  RunStats Snapshot() const;

 private:
  void SnapshotCpuWait(GeneratorStats& g) const;
  // The live counters of the rows (core/run/run_counters.h).
  RowCounters<RunStats, kRunCounters> counters_;
  RowHistograms<RunStats, kRunHistograms> histograms_;

  std::array<SingleWriterCounter, kOutcomeCount> outcomes_{};
  std::array<SingleWriterCounter, kStatusCodeSlots> status_codes_{};
  std::array<SingleWriterCounter, proto::kGrpcStatusCount> grpc_status_{};
  std::array<std::array<SingleWriterCounter, kErrnoSlots>, kOutcomeCount> causes_{};
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
  LatencyHistogram schedule_lag_;
  std::atomic<const char*> tls_version_{""};
  std::atomic<const char*> tls_cipher_{""};
};

}  // namespace uringload::core
