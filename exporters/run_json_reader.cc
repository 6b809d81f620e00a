#include "exporters/run_json_reader.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "exporters/json_text.h"
#include "exporters/report_format.h"

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
  if (Text(h, "layout") != HistogramBuckets::kLayout) {
    throw BadField{absl::StrCat("\"", key, "\" has layout '", Text(h, "layout"), "', not '",
                                HistogramBuckets::kLayout, "' (another uringload version?)")};
  }
  HistogramSnapshot s;
  for (const Json& bucket : At(h, "buckets")) {
    if (!bucket.is_array() || bucket.size() != 2 || !bucket[0].is_number_unsigned() ||
        !bucket[1].is_number_unsigned() || bucket[0].get<uint64_t>() >= s.counts.size()) {
      throw BadField{absl::StrCat("\"", key, "\" has a bucket that is not [index, count]")};
    }
    s.counts[bucket[0].get<size_t>()] += bucket[1].get<uint64_t>();
  }
  s.count = Count(h, "count");
  s.sum = Count(h, "sum");
  s.min = Count(h, "min");
  s.max = Count(h, "max");
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

// The cause slot of an "errors" entry: its errno, or for a parse error (written with errno
// 0) the parse cause whose text is the message.
size_t CauseSlot(size_t outcome, const Json& error) {
  uint64_t slot = Count(error, "errno");
  if (outcome != static_cast<size_t>(core::Outcome::kParseError)) {
    if (slot >= core::kErrnoSlots) throw BadField{"an error's errno is out of range"};
    return slot;
  }
  std::string message = Text(error, "message");
  for (size_t e = 0; e < core::kErrnoSlots; ++e) {
    if (CauseText(outcome, e) == message) return e;
  }
  throw BadField{absl::StrCat("unknown parse error '", message, "'")};
}

void ReadStats(const Json& doc, RunResultFile& r) {
  core::RunStats& s = r.stats;
  const Json& requests = At(doc, "requests");
  s.started = Count(requests, "started");
  s.late_starts = Count(requests, "late_starts");
  for (const auto& [name, count] : At(doc, "outcomes").items()) {
    if (!count.is_number_unsigned()) throw BadField{"an outcome is not a count"};
    s.outcomes[OutcomeIndex(name)] = count.get<uint64_t>();
  }
  for (const auto& [code, count] : At(doc, "status_codes").items()) {
    size_t c = 0;
    if (!absl::SimpleAtoi(code, &c) || c >= s.status_codes.size() || !count.is_number_unsigned()) {
      throw BadField{absl::StrCat("bad status code entry '", code, "'")};
    }
    s.status_codes[c] = count.get<uint64_t>();
  }
  s.bytes_sent = Count(At(doc, "bytes"), "sent");
  s.bytes_received = Count(At(doc, "bytes"), "received");
  const Json& connections = At(doc, "connections");
  s.connections_opened = Count(connections, "opened");
  s.connections_peak = Count(connections, "peak");
  s.ramp_ns = static_cast<uint64_t>(At(connections, "ramp_seconds").get<double>() * 1e9 + 0.5);
  if (connections.contains("preconnected")) {  // Absent from results before --preconnect.
    s.preconnected = Count(connections, "preconnected");
  }
  for (const Json& error : At(doc, "errors")) {
    size_t o = OutcomeIndex(Text(error, "outcome"));
    s.causes[o][CauseSlot(o, error)] += Count(error, "count");
  }
  s.warmup_started = Count(At(doc, "warmup"), "requests");
  s.latency = Histogram(doc, "latency_histogram");
  s.latency_uncorrected = Histogram(doc, "latency_uncorrected_histogram");
  s.connect = Histogram(doc, "connect_histogram");
  s.tls_handshake = Histogram(doc, "tls_handshake_histogram");
  const Json& tls = At(doc, "tls");
  r.tls = !tls.is_null();
  if (r.tls) {
    s.tls_handshakes = Count(tls, "handshakes");
    s.tls_resumed = Count(tls, "resumed");
    r.tls_version = Text(tls, "version");
    r.tls_cipher = Text(tls, "cipher");
  }
  for (const Json& target : At(doc, "targets")) {
    r.targets.push_back({.line = static_cast<int>(Count(target, "line")),
                         .method = Text(target, "method"),
                         .url = Text(target, "url")});
    s.target_ok.push_back(Count(target, "ok"));
    s.target_failed.push_back(Count(target, "failed"));
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
    r.target = Text(doc, "target");
    r.run_id = Text(doc, "run_id");
    if (doc.contains("machine") && doc["machine"].is_string()) r.machine = Text(doc, "machine");
    if (doc.contains("merged_shards")) {
      r.merged_shards = static_cast<uint32_t>(Count(doc, "merged_shards"));
    }
    const Json& shard = At(doc, "shard");
    uint64_t index = Count(shard, "index");
    uint64_t count = Count(shard, "count");
    if (count < 1 || count > core::kMaxShards || index >= count) throw BadField{"bad \"shard\""};
    r.shard = {.index = static_cast<uint32_t>(index), .count = static_cast<uint32_t>(count)};
    if (!At(doc, "start_at").is_null()) {
      r.start_at = Time(doc, "start_at");
      r.stats.start_skew_ns =
          static_cast<uint64_t>(At(doc, "start_skew_seconds").get<double>() * 1e9 + 0.5);
    }
    r.started_at = Time(doc, "started_at");
    r.ended_at = Time(doc, "ended_at");
    r.interrupted = At(doc, "interrupted").get<bool>();
    const Json& planned = At(At(doc, "requests"), "planned");
    if (!planned.is_null()) r.planned = planned.get<uint64_t>();
    r.concurrency = static_cast<uint32_t>(Count(doc, "concurrency"));
    r.threads = static_cast<uint32_t>(Count(doc, "threads"));
    const Json& rate = At(doc, "rate");
    if (!rate.is_null()) r.rate = rate.get<double>();
    r.pipeline = static_cast<uint32_t>(Count(doc, "pipeline"));
    r.warmup_seconds = At(At(doc, "warmup"), "seconds").get<double>();
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
