// RunStats: a run's results as plain, mergeable numbers: a copy of the workers' counters
// (WorkerStats::Snapshot), of shards' results (merge), or of a JSON result read back. Its
// single-number counters are rows of core/run/run_counters.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/latency_histogram.h"
#include "core/outcome.h"
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
  // Of the ok requests, from their start (as `latency`) to their response's complete head,
  // and (those with a body) to its first body byte.
  HistogramSnapshot response_head;
  HistogramSnapshot first_byte;
  // --stream: the ok responses that carried events, their events, and those that ended with
  // the OpenAI stream's `data: [DONE]`; each request's time to its first event (from its start,
  // as `latency`) and the gaps between its events, as they arrived.
  uint64_t stream_responses = 0;
  uint64_t stream_events = 0;
  uint64_t stream_done = 0;
  HistogramSnapshot first_event;
  HistogramSnapshot event_gap;
  // --llm: the ok answers whose tokens were read, their output tokens (the usage chunk's when
  // the server sent one, else the deltas with content counted) and input tokens (usage), the
  // answers whose usage came, and those that met every --goodput bound; each answer's time to
  // its first token (from its intended start), the gaps between its tokens, and its time per
  // output token after the first.
  uint64_t llm_answers = 0;
  uint64_t llm_output_tokens = 0;
  uint64_t llm_input_tokens = 0;
  uint64_t llm_usage = 0;
  uint64_t llm_good = 0;
  HistogramSnapshot ttft;
  HistogramSnapshot itl;
  HistogramSnapshot tpot;
  uint64_t late_starts = 0;  // Open model: due while every connection was busy.
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

}  // namespace uringload::core
