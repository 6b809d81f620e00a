// The key names of the run result JSON (schema: docs/run.md) that are both written
// (run_json.cc) and read back (run_json_reader.cc, for merge and report): one spelling each.
// The single-number counters are rows of core/run/run_counters.h, keys and all.
#pragma once

namespace uringload::exporters::run_key {

inline constexpr char kBuckets[] = "buckets";
inline constexpr char kBytes[] = "bytes";
inline constexpr char kCipher[] = "cipher";
inline constexpr char kConcurrency[] = "concurrency";
inline constexpr char kConnections[] = "connections";
inline constexpr char kCount[] = "count";
inline constexpr char kEndedAt[] = "ended_at";
inline constexpr char kErrno[] = "errno";
inline constexpr char kErrors[] = "errors";
inline constexpr char kFailed[] = "failed";
inline constexpr char kIndex[] = "index";
inline constexpr char kInterrupted[] = "interrupted";
inline constexpr char kLatencyHistogram[] = "latency_histogram";
inline constexpr char kLatencyUncorrectedHistogram[] = "latency_uncorrected_histogram";
inline constexpr char kLayout[] = "layout";
inline constexpr char kLine[] = "line";
inline constexpr char kMachine[] = "machine";
inline constexpr char kMax[] = "max";
inline constexpr char kMergedShards[] = "merged_shards";
inline constexpr char kMessage[] = "message";
inline constexpr char kMethod[] = "method";
inline constexpr char kMin[] = "min";
inline constexpr char kOk[] = "ok";
inline constexpr char kOutcome[] = "outcome";
inline constexpr char kOutcomes[] = "outcomes";
inline constexpr char kPipeline[] = "pipeline";
inline constexpr char kPlanned[] = "planned";
inline constexpr char kRampSeconds[] = "ramp_seconds";
inline constexpr char kRate[] = "rate";
inline constexpr char kRequests[] = "requests";
inline constexpr char kRunId[] = "run_id";
inline constexpr char kSeconds[] = "seconds";
inline constexpr char kShard[] = "shard";
inline constexpr char kStartAt[] = "start_at";
inline constexpr char kStartSkewSeconds[] = "start_skew_seconds";
inline constexpr char kStartedAt[] = "started_at";
inline constexpr char kStatusCodes[] = "status_codes";
inline constexpr char kSum[] = "sum";
inline constexpr char kTarget[] = "target";
inline constexpr char kTargets[] = "targets";
inline constexpr char kByTarget[] = "by_target";
inline constexpr char kName[] = "name";
inline constexpr char kThreads[] = "threads";
inline constexpr char kTls[] = "tls";
inline constexpr char kUrl[] = "url";
inline constexpr char kVersion[] = "version";
inline constexpr char kWarmup[] = "warmup";
inline constexpr char kQuic[] = "quic";
inline constexpr char kHttp1[] = "http/1.1";
inline constexpr char kProtocols[] = "protocols";
inline constexpr char kGrpc[] = "grpc";
inline constexpr char kCalls[] = "calls";
inline constexpr char kStatus[] = "status";
inline constexpr char kGenerator[] = "generator";
inline constexpr char kOkPerInterval[] = "ok_per_interval";
inline constexpr char kCounts[] = "counts";
inline constexpr char kScheduleLagHistogram[] = "schedule_lag_histogram";
inline constexpr char kScheduleLagBoundSeconds[] = "schedule_lag_bound_seconds";
inline constexpr char kUnsent[] = "unsent";
inline constexpr char kBusySeconds[] = "busy_seconds";
inline constexpr char kBusyPoll[] = "busy_poll";
inline constexpr char kWorkerSeconds[] = "worker_seconds";
inline constexpr char kBusiestWorkerShare[] = "busiest_worker_share";
inline constexpr char kCpuSeconds[] = "cpu_seconds";
inline constexpr char kRunQueueSeconds[] = "run_queue_seconds";
inline constexpr char kRunQueueLongestSeconds[] = "run_queue_longest_seconds";
inline constexpr char kRunQueueShare[] = "run_queue_share";
inline constexpr char kUnreadSeconds[] = "unread_seconds";
inline constexpr char kUnreadLongestSeconds[] = "unread_longest_seconds";
inline constexpr char kUnreadShare[] = "unread_share";
inline constexpr char kThrottledSeconds[] = "throttled_seconds";
inline constexpr char kThrottledPeriods[] = "throttled_periods";
inline constexpr char kThrottledShare[] = "throttled_share";
inline constexpr char kThrottledCgroup[] = "throttled_cgroup";
inline constexpr char kWorkers[] = "workers";
inline constexpr char kCpus[] = "cpus";
inline constexpr char kCpuCount[] = "cpu_count";
inline constexpr char kUser[] = "user";
inline constexpr char kSystem[] = "system";

}  // namespace uringload::exporters::run_key
