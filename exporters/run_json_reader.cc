#include "exporters/run_json_reader.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/run/run_counters.h"
#include "core/run/run_histograms.h"
#include "exporters/counter_json.h"
#include "exporters/json_text.h"
#include "exporters/report_format.h"
#include "exporters/run_json_keys.h"
#include "net/base/absl_view.h"
#include "proto/grpc_status.h"

namespace uringload::exporters {
namespace {

using core::HistogramBuckets;
using core::HistogramSnapshot;

// Thrown inside this file only, caught by ReadRunResult: the JSON is read field by field and
// any missing or mistyped one ends the read with its name.
struct BadField {
  std::string what;
};

const Json& At(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) throw BadField{absl::StrCat("no \"", key, "\"")};
  return j.at(key);
}

uint64_t Count(const Json& j, const char* key) {
  const Json& v = At(j, key);
  if (!v.is_number_unsigned()) throw BadField{absl::StrCat("\"", key, "\" is not a count")};
  return v.get<uint64_t>();
}

std::string Text(const Json& j, const char* key) {
  const Json& v = At(j, key);
  if (!v.is_string()) throw BadField{absl::StrCat("\"", key, "\" is not a string")};
  return v.get<std::string>();
}

absl::Time Time(const Json& j, const char* key) {
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, Text(j, key), &t, &error)) {
    throw BadField{absl::StrCat("\"", key, "\": ", error)};
  }
  return t;
}

HistogramSnapshot Histogram(const Json& j, const char* key) {
  const Json& h = At(j, key);
  if (Text(h, run_key::kLayout) != HistogramBuckets::kLayout) {
    throw BadField{absl::StrCat("\"", key, "\" has layout '", Text(h, run_key::kLayout), "', not '",
                                HistogramBuckets::kLayout, "' (another uringload version?)")};
  }
  HistogramSnapshot s;
  for (const Json& bucket : At(h, run_key::kBuckets)) {
    if (!bucket.is_array() || bucket.size() != 2 || !bucket[0].is_number_unsigned() ||
        !bucket[1].is_number_unsigned() || bucket[0].get<uint64_t>() >= s.counts.size()) {
      throw BadField{absl::StrCat("\"", key, "\" has a bucket that is not [index, count]")};
    }
    s.counts[bucket[0].get<size_t>()] += bucket[1].get<uint64_t>();
  }
  s.count = Count(h, run_key::kCount);
  s.sum = Count(h, run_key::kSum);
  s.min = Count(h, run_key::kMin);
  s.max = Count(h, run_key::kMax);
  uint64_t total = 0;
  for (uint64_t c : s.counts) total += c;
  if (total != s.count) throw BadField{absl::StrCat("\"", key, "\" buckets do not add up")};
  return s;
}

size_t OutcomeIndex(const std::string& name) {
  for (size_t o = 0; o < core::kOutcomeCount; ++o) {
    if (name == core::kOutcomeNames[o]) return o;
  }
  throw BadField{absl::StrCat("unknown outcome '", name, "'")};
}

// The cause slot of an "errors" entry: its errno, or for a parse error or a failed check
// (written with errno 0) the reason whose text is the message.
void ReadOutcomes(const Json& j, std::array<uint64_t, core::kOutcomeCount>* outcomes) {
  for (const auto& [name, count] : j.items()) {
    if (!count.is_number_unsigned()) throw BadField{"an outcome is not a count"};
    (*outcomes)[OutcomeIndex(name)] = count.get<uint64_t>();
  }
}

void ReadStatusCodes(const Json& j, std::array<uint64_t, core::kStatusCodeSlots>* codes) {
  for (const auto& [code, count] : j.items()) {
    size_t c = 0;
    if (!absl::SimpleAtoi(code, &c) || c >= codes->size() || !count.is_number_unsigned()) {
      throw BadField{absl::StrCat("bad status code entry '", code, "'")};
    }
    (*codes)[c] = count.get<uint64_t>();
  }
}

size_t CauseSlot(size_t outcome, const Json& error) {
  uint64_t slot = Count(error, run_key::kErrno);
  if (!core::CauseIsReason(outcome)) {
    if (slot >= core::kErrnoSlots) throw BadField{"an error's errno is out of range"};
    return slot;
  }
  std::string message = Text(error, run_key::kMessage);
  for (size_t e = 0; e < core::kErrnoSlots; ++e) {
    if (CauseText(outcome, e) == message) return e;
  }
  throw BadField{absl::StrCat("unknown ", core::OutcomeName(static_cast<core::Outcome>(outcome)),
                              " reason '", message, "'")};
}

void ReadStats(const Json& doc, RunResultFile& r) {
  core::RunStats& s = r.stats;
  At(doc, run_key::kRequests);  // The objects every result has.
  At(doc, run_key::kBytes);
  At(At(doc, run_key::kConnections), run_key::kRampSeconds);
  std::string bad_key;
  if (!ReadCounters<core::RunStats>(doc, s, &bad_key, core::kRunCounters))
    throw BadField{absl::StrCat("\"", bad_key, "\" is not a count")};
  ReadOutcomes(At(doc, run_key::kOutcomes), &s.outcomes);
  ReadStatusCodes(At(doc, run_key::kStatusCodes), &s.status_codes);
  for (const Json& error : At(doc, run_key::kErrors)) {
    size_t o = OutcomeIndex(Text(error, run_key::kOutcome));
    s.causes[o][CauseSlot(o, error)] += Count(error, run_key::kCount);
  }
  s.latency = Histogram(doc, run_key::kLatencyHistogram);
  s.latency_uncorrected = Histogram(doc, run_key::kLatencyUncorrectedHistogram);
  // The table's histograms, in the objects the result holds (a result from before a row
  // existed has none of its histogram: empty).
  for (const core::HistogramRow& row : core::kRunHistograms) {
    const Json* object = row.object.empty() ? &doc : CounterObject(doc, row.object);
    std::string key = absl::StrCat(AbslView(row.stem), "_histogram");
    if (object != nullptr && object->contains(key)) s.*row.member = Histogram(*object, key.c_str());
  }
  const Json& tls = At(doc, run_key::kTls);
  r.tls = !tls.is_null();
  if (r.tls) {
    r.tls_version = Text(tls, run_key::kVersion);
    r.tls_cipher = Text(tls, run_key::kCipher);
  }
  if (doc.contains(run_key::kGenerator)) {  // Absent from results before it was recorded.
    const Json& g = At(doc, run_key::kGenerator);
    auto nanos = [](const Json& j, const char* key) {
      return static_cast<uint64_t>(At(j, key).get<double>() * 1e9 + 0.5);
    };
    s.generator.schedule_lag = Histogram(g, run_key::kScheduleLagHistogram);
    s.generator.unsent = Count(g, run_key::kUnsent);
    s.generator.busy_ns = nanos(g, run_key::kBusySeconds);
    s.generator.wall_ns = nanos(g, run_key::kWorkerSeconds);
    s.generator.busiest_share = At(g, run_key::kBusiestWorkerShare).get<double>();
    s.generator.cpu_user_ns = nanos(At(g, run_key::kCpuSeconds), run_key::kUser);
    s.generator.cpu_system_ns = nanos(At(g, run_key::kCpuSeconds), run_key::kSystem);
    if (g.contains(run_key::kRunQueueSeconds)) {  // Absent from results before it was kept.
      s.generator.run_queue_ns = nanos(g, run_key::kRunQueueSeconds);
      s.generator.run_queue_longest_ns = nanos(g, run_key::kRunQueueLongestSeconds);
      s.generator.run_queue_share = At(g, run_key::kRunQueueShare).get<double>();
      s.generator.throttled_ns = nanos(g, run_key::kThrottledSeconds);
      s.generator.throttled_periods = Count(g, run_key::kThrottledPeriods);
      s.generator.throttled_share = At(g, run_key::kThrottledShare).get<double>();
      const Json& cgroup = At(g, run_key::kThrottledCgroup);
      s.generator.throttled_cgroup = cgroup.is_null() ? "" : Text(g, run_key::kThrottledCgroup);
      s.generator.workers = static_cast<uint32_t>(Count(g, run_key::kWorkers));
      s.generator.cpus = Text(g, run_key::kCpus);
      s.generator.cpu_count = static_cast<uint32_t>(Count(g, run_key::kCpuCount));
    }
    if (g.contains(run_key::kUnreadSeconds)) {  // Absent from results before it was kept.
      s.generator.unread_ns = nanos(g, run_key::kUnreadSeconds);
      s.generator.unread_longest_ns = nanos(g, run_key::kUnreadLongestSeconds);
      s.generator.unread_share = At(g, run_key::kUnreadShare).get<double>();
    }
    r.schedule_lag_bound = absl::Nanoseconds(nanos(g, run_key::kScheduleLagBoundSeconds));
    r.busy_poll = g.contains(run_key::kBusyPoll) && At(g, run_key::kBusyPoll).is_boolean() &&
                  At(g, run_key::kBusyPoll).get<bool>();
  }
  if (doc.contains(run_key::kOkPerInterval)) {
    const Json& series = At(doc, run_key::kOkPerInterval);
    r.interval_seconds = At(series, run_key::kSeconds).get<double>();
    for (const Json& count : At(series, run_key::kCounts)) {
      if (!count.is_number_unsigned()) throw BadField{"an ok_per_interval count is not a count"};
      r.ok_per_interval.push_back(count.get<uint64_t>());
    }
  }
  for (const Json& target : At(doc, run_key::kTargets)) {
    r.targets.push_back({.line = static_cast<int>(Count(target, run_key::kLine)),
                         .method = Text(target, run_key::kMethod),
                         .url = Text(target, run_key::kUrl)});
    s.target_ok.push_back(Count(target, run_key::kOk));
    s.target_failed.push_back(Count(target, run_key::kFailed));
  }
  if (doc.contains(run_key::kByTarget)) {  // Absent from results before per-target results.
    for (const Json& target : At(doc, run_key::kByTarget)) {
      r.target_names.push_back(Text(target, run_key::kName));
      core::TargetStats& t = s.by_target.emplace_back();
      ReadOutcomes(At(target, run_key::kOutcomes), &t.outcomes);
      ReadStatusCodes(At(target, run_key::kStatusCodes), &t.status_codes);
      t.latency = Histogram(target, run_key::kLatencyHistogram);
      if (t.latency.count != t.outcomes[static_cast<size_t>(core::Outcome::kOk)]) {
        throw BadField{"a target's latency histogram does not count its ok requests"};
      }
      if (target.contains("aborted_iterations")) {  // A flow's step.
        t.aborted = Count(target, "aborted_iterations");
        for (const auto& [text, count] : At(target, "check_failed_causes").items()) {
          for (int c = 1; c < core::kCheckFailureCount; ++c) {
            if (text == core::CheckFailureText(c)) t.check_causes[c] = count.get<uint64_t>();
          }
        }
      }
    }
  }
  if (doc.contains("iterations")) {  // --flow.
    r.flow = true;
  }
  if (const Json* streams = CounterObject(doc, "streams"); streams != nullptr) {  // --stream.
    r.stream_format = Text(*streams, "format") == "ndjson" ? proto::EventFormat::kNdjson
                                                           : proto::EventFormat::kSse;
  }
  if (const Json* llm = CounterObject(doc, "llm"); llm != nullptr) {  // --llm.
    r.llm_chat = Text(*llm, "kind") == "chat";
  }
  if (doc.contains(run_key::kGrpc)) {  // --grpc.
    for (const auto& [name, count] : At(At(doc, run_key::kGrpc), run_key::kStatus).items()) {
      std::optional<int> code = proto::GrpcStatusByName(name);
      if (!code || !count.is_number_unsigned()) {
        throw BadField{absl::StrCat("bad gRPC status entry '", name, "'")};
      }
      s.grpc_status[*code] = count.get<uint64_t>();
    }
    r.grpc = true;
  }
}

}  // namespace

absl::StatusOr<RunResultFile> ReadRunResult(std::string_view text, const std::string& name) {
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": not a JSON object"));
  }
  RunResultFile r;
  r.name = name;
  try {
    r.target = Text(doc, run_key::kTarget);
    r.run_id = Text(doc, run_key::kRunId);
    if (doc.contains(run_key::kMachine) && doc[run_key::kMachine].is_string())
      r.machine = Text(doc, run_key::kMachine);
    if (doc.contains(run_key::kMergedShards)) {
      r.merged_shards = static_cast<uint32_t>(Count(doc, run_key::kMergedShards));
    }
    const Json& shard = At(doc, run_key::kShard);
    uint64_t index = Count(shard, run_key::kIndex);
    uint64_t count = Count(shard, run_key::kCount);
    if (count < 1 || count > core::kMaxShards || index >= count) throw BadField{"bad \"shard\""};
    r.shard = {.index = static_cast<uint32_t>(index), .count = static_cast<uint32_t>(count)};
    if (!At(doc, run_key::kStartAt).is_null()) {
      r.start_at = Time(doc, run_key::kStartAt);
      r.stats.start_skew_ns =
          static_cast<uint64_t>(At(doc, run_key::kStartSkewSeconds).get<double>() * 1e9 + 0.5);
    }
    r.started_at = Time(doc, run_key::kStartedAt);
    r.ended_at = Time(doc, run_key::kEndedAt);
    r.interrupted = At(doc, run_key::kInterrupted).get<bool>();
    const Json& planned = At(At(doc, run_key::kRequests), run_key::kPlanned);
    if (!planned.is_null()) r.planned = planned.get<uint64_t>();
    r.concurrency = static_cast<uint32_t>(Count(doc, run_key::kConcurrency));
    r.threads = static_cast<uint32_t>(Count(doc, run_key::kThreads));
    const Json& rate = At(doc, run_key::kRate);
    if (!rate.is_null()) r.rate = rate.get<double>();
    if (auto a = doc.find("arrival"); a != doc.end() && a->is_string()) {
      r.arrival = a->get<std::string>();
    }
    r.pipeline = static_cast<uint32_t>(Count(doc, run_key::kPipeline));
    r.warmup_seconds = At(At(doc, run_key::kWarmup), run_key::kSeconds).get<double>();
    ReadStats(doc, r);
  } catch (const BadField& bad) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not a uringload run result: ", bad.what));
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not a uringload run result: ", e.what()));
  }
  return r;
}

}  // namespace uringload::exporters
