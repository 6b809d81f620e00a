#include "core/run/run_plan.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/cpu_pinning.h"
#include "core/run/plan_targets.h"
#include "net/base/seeded_random.h"
#include "net/base/status_macros.h"
#include "net/quic_tls.h"
#include "net/source_addresses.h"

namespace uringload::core {
namespace {

absl::Status CheckCounts(const RunOptions& options) {
  if (options.requests.has_value()) {
    URINGLOAD_RETURN_IF_ERROR(CheckRange("-n/--requests", *options.requests, 1, kMaxRequests));
  }
  URINGLOAD_RETURN_IF_ERROR(
      CheckRange("-c/--concurrency", options.concurrency, 1, kMaxConcurrency));
  if (options.threads.has_value()) {
    URINGLOAD_RETURN_IF_ERROR(CheckRange("-t/--threads", *options.threads, 1, kMaxThreads));
  }
  URINGLOAD_RETURN_IF_ERROR(
      CheckRange("--max-connecting", options.max_connecting, 1, kMaxConnecting));
  if (options.body.has_value() && options.body_file.has_value()) {
    return absl::InvalidArgumentError("--body and --body-file cannot be used together");
  }
  if (options.body_file_placeholders && !options.body_file.has_value() &&
      !options.targets_file.has_value()) {
    return absl::InvalidArgumentError(
        "--body-file-placeholders needs a body from a file: --body-file, or --targets lines "
        "with @file");
  }
  return absl::OkStatus();
}

// Default: one worker per CPU (per --cpus CPU), never more than C, and enough that no ring's
// descriptor table exceeds RLIMIT_NOFILE. An explicit -t is kept and checked.
absl::Status ChooseThreads(const RunOptions& options, RunPlan& plan) {
  if (options.cpus.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(std::vector<int> cpus, ParseCpuList(*options.cpus));
    plan.cpus = std::move(cpus);
  }
  uint32_t cpus = plan.cpus.empty() ? OnlineCpus() : static_cast<uint32_t>(plan.cpus.size());
  // A flow's users hold a connection per origin (lanes): each one a slot of the ring.
  uint64_t table_limit = DescriptorTableLimit() / plan.lanes;
  uint32_t needed = static_cast<uint32_t>((plan.concurrency + table_limit - 1) / table_limit);
  uint32_t threads =
      options.threads.has_value()
          ? static_cast<uint32_t>(*options.threads)
          : EvenOverCpus(std::max(cpus, needed), static_cast<uint32_t>(plan.cpus.size()));
  plan.threads = std::min(threads, plan.concurrency);
  uint64_t per_worker = ConnectionsForWorker(plan.concurrency, plan.threads, 0);
  if (per_worker > table_limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("-c ", plan.concurrency, " over ", plan.threads, " threads puts ",
                     per_worker * plan.lanes, " connections on one ring, above RLIMIT_NOFILE (",
                     table_limit * plan.lanes, "); use -t ", needed, " or more"));
  }
  return absl::OkStatus();
}

// https:// gets one TLS context, checked now (--cacert, --ciphers) so a mistake exits 2. It
// offers h2 and http/1.1 by ALPN, or only the one --http2 or --http1.1 asks for; http:// with
// An HTTP/2 setting given as a flag: in [low, high], and only where a connection may speak
// HTTP/2.
absl::Status PlanHttp2Setting(const std::string& flag, std::optional<int64_t> value, int64_t low,
                              int64_t high, const RunPlan& plan, uint32_t& setting) {
  if (!value.has_value()) return absl::OkStatus();
  URINGLOAD_RETURN_IF_ERROR(CheckRange(flag, *value, low, high));
  if (!plan.may_speak_http2()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " needs HTTP/2: --http2, or an https:// URL without --http1.1"));
  }
  setting = static_cast<uint32_t>(*value);
  return absl::OkStatus();
}

// --http3: HTTP/3 over QUIC, which is TLS 1.3 over UDP: https:// only, to a host and port
// (no Unix socket), verified as over TCP (-k, --cacert); OpenSSL's flags do not apply to
// QUIC's GnuTLS.
absl::Status PlanQuic(const RunOptions& options, RunPlan& plan) {
  if (options.http1 || options.http2 || plan.grpc) {
    return absl::InvalidArgumentError(
        "--http3 excludes --http1.1, --http2 and --grpc (HTTP/3 is its own protocol)");
  }
  for (size_t o = 0; o < std::max<size_t>(1, plan.origins.size()); ++o) {
    if (!plan.UrlOf(static_cast<uint16_t>(o)).tls) {
      return absl::InvalidArgumentError("--http3 needs an https:// URL (QUIC is always encrypted)");
    }
  }
  if (options.unix_socket.has_value()) {
    return absl::InvalidArgumentError("--http3 and --unix: QUIC runs over UDP, not a Unix socket");
  }
  if (options.tls_max_version || options.ciphers || options.ciphersuites) {
    return absl::InvalidArgumentError(
        "--http3: --tls-max-version, --ciphers and --ciphersuites are TCP's (QUIC is TLS 1.3 "
        "with its own ciphers)");
  }
  plan.quic_resume = !options.no_tls_resume;
  if (options.zero_rtt && options.no_tls_resume) {
    return absl::InvalidArgumentError(
        "--0rtt resumes a session (0-RTT rides on it): not with --no-tls-resume");
  }
  plan.quic_zero_rtt = options.zero_rtt;
  URINGLOAD_ASSIGN_OR_RETURN(std::unique_ptr<net::QuicTlsContext> context,
                             net::QuicTlsContext::Client({.verify = !options.insecure,
                                                          .ca_file = options.cacert.value_or("")}));
  plan.quic_tls = std::move(context);
  return absl::OkStatus();
}

// --http2 speaks h2c with prior knowledge (RFC 9113 3.3).
absl::Status PlanTls(const RunOptions& options, RunPlan& plan) {
  if (options.http1 && options.http2) {
    return absl::InvalidArgumentError("--http1.1 and --http2 exclude each other");
  }
  if (options.http1 && plan.grpc) {
    return absl::InvalidArgumentError("gRPC speaks HTTP/2: no --http1.1");
  }
  // gRPC is HTTP/2: h2c with prior knowledge over http://, h2 by ALPN over https://.
  plan.http = options.http3                ? HttpVersion::kHttp3
              : options.http2 || plan.grpc ? HttpVersion::kHttp2
              : options.http1              ? HttpVersion::kHttp1
                                           : HttpVersion::kAuto;
  URINGLOAD_RETURN_IF_ERROR(PlanHttp2Setting("--http2-window", options.http2_window, 1,
                                             kMaxHttp2Window, plan, plan.http2_window));
  URINGLOAD_RETURN_IF_ERROR(PlanHttp2Setting("--http2-header-table", options.http2_header_table, 0,
                                             kMaxHttp2HeaderTable, plan, plan.http2_header_table));
  bool tls_flags = options.insecure || options.cacert || options.no_tls_resume ||
                   options.tls_max_version || options.ciphers || options.ciphersuites;
  if (options.http3) return PlanQuic(options, plan);
  if (options.zero_rtt) return absl::InvalidArgumentError("--0rtt needs --http3");
  if (!plan.any_tls()) {
    if (tls_flags) {
      return absl::InvalidArgumentError(
          "-k, --cacert, --no-tls-resume, --tls-max-version, --ciphers and --ciphersuites need "
          "an https:// URL");
    }
    return absl::OkStatus();
  }
  net::TlsClientOptions tls{.verify = !options.insecure,
                            .cacert = options.cacert,
                            .resume = !options.no_tls_resume,
                            .max_version = options.tls_max_version,
                            .ciphers = options.ciphers,
                            .ciphersuites = options.ciphersuites};
  tls.alpn = plan.http == HttpVersion::kHttp2   ? net::Alpn::kHttp2
             : plan.http == HttpVersion::kHttp1 ? net::Alpn::kHttp1
                                                : net::Alpn::kHttp2OrHttp1;
  URINGLOAD_ASSIGN_OR_RETURN(std::shared_ptr<net::TlsContext> context,
                             net::TlsContext::Client(tls));
  plan.tls = std::move(context);
  return absl::OkStatus();
}

// The open model (-R, --ramp, --arrival), pipelining (-p) and the warmup.
absl::Status PlanLoadShape(const RunOptions& options, RunPlan& plan) {
  if (options.rate.has_value()) {
    double rate = 0;
    if (!absl::SimpleAtod(*options.rate, &rate) || !std::isfinite(rate) || rate <= 0 ||
        rate > kMaxRate) {
      return absl::InvalidArgumentError(
          absl::StrCat("-R/--rate must be a number of requests per second above 0 and at most ",
                       kMaxRate, ", got '", *options.rate, "'"));
    }
    plan.rate = rate;
  }
  if (options.ramp.has_value()) {
    if (!plan.rate.has_value()) return absl::InvalidArgumentError("--ramp needs -R/--rate");
    URINGLOAD_ASSIGN_OR_RETURN(absl::Duration ramp,
                               ParseDurationFlag("--ramp", *options.ramp, absl::ZeroDuration(),
                                                 kMaxDuration, /*min_exclusive=*/true));
    plan.ramp = ramp;
  }
  if (options.arrival.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(plan.arrival, ParseArrival(*options.arrival));
    if (!plan.rate.has_value() || options.replay_file.has_value()) {
      return absl::InvalidArgumentError(
          "--arrival needs -R/--rate (it shapes the open model's arrivals; --replay keeps the "
          "log's own times)");
    }
  }
  if (options.stream != "none" && plan.grpc) {
    return absl::InvalidArgumentError(
        "--stream reads HTTP bodies as events: a gRPC call's messages are counted by --grpc");
  }
  if (options.stream == "sse" || options.stream == "ndjson") {
    plan.streams = true;
    plan.stream = options.stream == "sse" ? proto::EventFormat::kSse : proto::EventFormat::kNdjson;
  } else if (options.stream != "none") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--stream must be none, sse (server-sent events) or ndjson (a JSON document a line), "
        "got '",
        options.stream, "'"));
  }
  URINGLOAD_RETURN_IF_ERROR(CheckRange("-p/--pipeline", options.pipeline, 1, kMaxPipeline));
  plan.pipeline = static_cast<uint32_t>(options.pipeline);
  if (plan.pipeline > 1 && options.flow_file.has_value()) {
    return absl::InvalidArgumentError(
        "--flow: a virtual user sends its next step after the last one's answer (no -p)");
  }
  if (plan.pipeline > 1 && options.no_keepalive) {
    return absl::InvalidArgumentError(
        "-p/--pipeline needs keep-alive: --no-keepalive sends one request per connection");
  }
  if (options.warmup.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(
        absl::Duration warmup,
        ParseDurationFlag("--warmup", *options.warmup, absl::ZeroDuration(), kMaxDuration));
    if (plan.duration.has_value() && warmup >= *plan.duration) {
      return absl::InvalidArgumentError(
          absl::StrCat("--warmup ", *options.warmup, " must be shorter than -d ",
                       absl::FormatDuration(*plan.duration), ": nothing would be measured"));
    }
    plan.warmup = warmup;
  }
  return absl::OkStatus();
}

// Shard K of S takes its share of -n (a contiguous range of indexes), of -c and of -R; with -d
// alone its indexes are K, K+S, K+2S, ... Every share must be at least one.
absl::Status PlanShard(const RunOptions& options, RunPlan& plan) {
  if (options.start_at.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(absl::Time at, ParseStartAt(*options.start_at, absl::Now()));
    plan.start_at = at;
  }
  if (options.preconnect && !plan.start_at.has_value()) {
    return absl::InvalidArgumentError(
        "--preconnect needs --start-at: the connections open while the run waits for its start");
  }
  plan.preconnect = options.preconnect;
  if (!options.shard.has_value()) return absl::OkStatus();
  URINGLOAD_ASSIGN_OR_RETURN(Shard shard, ParseShard(*options.shard));
  plan.shard = shard;
  if (shard.count == 1) return absl::OkStatus();
  auto none_left = [&](const char* what, uint64_t total) {
    return absl::InvalidArgumentError(absl::StrCat(what, " ", total, " over ", shard.count,
                                                   " shards leaves shard ", shard.index,
                                                   " with none"));
  };
  if (plan.requests.has_value()) {
    uint64_t total = *plan.requests;
    if (ShareOf(total, shard) == 0) return none_left("-n", total);
    plan.index_base = ShareBegin(total, shard);
    plan.requests = ShareOf(total, shard);
  } else {
    plan.index_base = shard.index;
    plan.index_stride = shard.count;
  }
  uint64_t connections = ShareOf(plan.requested_concurrency, shard);
  if (connections == 0) return none_left("-c", plan.requested_concurrency);
  plan.requested_concurrency = static_cast<uint32_t>(connections);
  if (plan.rate.has_value()) *plan.rate /= shard.count;
  return absl::OkStatus();
}

// Where connections go: the Unix socket of --unix, or each port of the URL's host; and the
// --source addresses they come from.
absl::Status PlanAddresses(const RunOptions& options, RunPlan& plan) {
  if (options.unix_socket.has_value()) {
    if (plan.url.last_port != plan.url.port) {
      return absl::InvalidArgumentError("--unix: a port range in the URL needs TCP");
    }
    if (options.source.has_value()) {
      return absl::InvalidArgumentError("--unix and --source: a Unix socket has no source address");
    }
    absl::StatusOr<net::SocketAddress> address = net::UnixAddress(*options.unix_socket);
    if (!address.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--unix: ", address.status().message()));
    }
    if (absl::Status s = net::CheckUnixSocketTarget(*address); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--unix: ", s.message()));
    }
    plan.addresses.push_back(*address);
    return absl::OkStatus();
  }
  for (uint32_t port = plan.url.port; port <= plan.url.last_port; ++port) {
    URINGLOAD_ASSIGN_OR_RETURN(net::SocketAddress address,
                               net::Resolve(plan.url.host, static_cast<uint16_t>(port)));
    plan.addresses.push_back(address);
  }
  for (size_t o = 1; o < plan.origins.size(); ++o) {  // A flow's other origins.
    Origin& origin = plan.origins[o];
    URINGLOAD_ASSIGN_OR_RETURN(
        origin.address, net::Resolve(origin.url.host, static_cast<uint16_t>(origin.url.port)));
  }
  if (!plan.origins.empty()) plan.origins[0].address = plan.addresses[0];
  if (options.source.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(std::vector<net::SocketAddress> sources,
                               net::ParseSourceAddresses(*options.source));
    for (const net::SocketAddress& source : sources) {
      bool other_family =
          std::any_of(plan.origins.begin(), plan.origins.end(),
                      [&](const Origin& o) { return o.address.family() != source.family(); });
      if (source.family() != plan.addresses[0].family() || other_family) {
        return absl::InvalidArgumentError(
            "--source: addresses must be of the target's family (IPv4 or IPv6)");
      }
    }
    plan.sources = std::move(sources);
  }
  return absl::OkStatus();
}

}  // namespace

uint32_t ConnectionsForWorker(uint32_t total, uint32_t workers, uint32_t index) {
  return total / workers + (index < total % workers ? 1 : 0);
}

uint32_t FirstConnectionOfWorker(uint32_t total, uint32_t workers, uint32_t index) {
  return index * (total / workers) + std::min(index, total % workers);
}

proto::RequestSpec RunPlan::RequestFor(size_t target, size_t address) const {
  proto::RequestSpec spec = targets[target].spec;
  const proto::Url& own = targets[target].parsed;
  spec.host_header = own.HostHeader(static_cast<uint16_t>(own.port + address));
  return spec;
}

size_t RunPlan::TargetOf(uint64_t index) const {
  if (targets.size() == 1) return 0;
  if (sequential_order) return index;  // -n is at most the targets' count.
  if (!random_order) return index % targets.size();
  // Uniform, stateless, the same on every worker.
  return SeededRandom(seed, index) % targets.size();
}

uint64_t RunPlan::RowOf(uint64_t index) const {
  // Salt 1: not the value that picks a random target for the same index.
  return (random_rows ? SeededRandom(seed, index, 1) : index) % data->rows();
}

proto::TemplateColumns RunPlan::columns() const {
  if (flow != nullptr) return {flow_columns, flow_column_sizes};
  if (data == nullptr) return {};
  return {data->columns(), data->max_sizes()};
}

namespace {

absl::StatusOr<RunPlan> MakePlanOf(const RunOptions& options) {
  URINGLOAD_RETURN_IF_ERROR(CheckCounts(options));
  RunPlan plan;
  // The timeout first: a gRPC call's grpc-timeout header carries it.
  URINGLOAD_ASSIGN_OR_RETURN(absl::Duration timeout,
                             ParseDurationFlag("--timeout", options.timeout, absl::ZeroDuration(),
                                               kMaxTimeout, /*min_exclusive=*/true));
  plan.timeout = timeout;
  URINGLOAD_RETURN_IF_ERROR(PlanTargets(options, plan));
  URINGLOAD_RETURN_IF_ERROR(PlanTls(options, plan));
  if (options.duration.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(
        absl::Duration d,
        ParseDurationFlag("-d/--duration", *options.duration, absl::ZeroDuration(), kMaxDuration,
                          /*min_exclusive=*/true));
    plan.duration = d;
  }
  if (options.requests.has_value()) {
    plan.requests = static_cast<uint64_t>(*options.requests);
  } else if (!plan.duration.has_value()) {
    plan.requests = kDefaultRequests;
  }
  if (plan.sequential_order) {
    // Each target once, in the file's order: the file's length unless -n asks for fewer.
    uint64_t lines = plan.targets.size();
    if (options.requests.has_value() && *plan.requests > lines) {
      return absl::InvalidArgumentError(
          absl::StrCat("--targets-order sequential sends each target once: -n ", *plan.requests,
                       " is more than the ", lines, " targets"));
    }
    if (!options.requests.has_value()) plan.requests = lines;
  }
  URINGLOAD_RETURN_IF_ERROR(PlanLoadShape(options, plan));
  plan.requested_concurrency = static_cast<uint32_t>(options.concurrency);
  URINGLOAD_RETURN_IF_ERROR(PlanShard(options, plan));
  // N requests never need more than N connections: the plan says what will happen.
  plan.concurrency =
      plan.requests.has_value()
          ? static_cast<uint32_t>(std::min<uint64_t>(plan.requested_concurrency, *plan.requests))
          : plan.requested_concurrency;
  URINGLOAD_RETURN_IF_ERROR(ChooseThreads(options, plan));
  URINGLOAD_ASSIGN_OR_RETURN(
      absl::Duration connect_timeout,
      ParseDurationFlag("--connect-timeout", options.connect_timeout, absl::ZeroDuration(),
                        kMaxTimeout, /*min_exclusive=*/true));
  plan.connect_timeout = connect_timeout;
  if (options.batch_window == "auto") {
    plan.batch_window = absl::Microseconds(200);
    plan.batch_window_max = plan.pipeline > 1 ? absl::Microseconds(400) : plan.batch_window;
  } else {
    absl::StatusOr<absl::Duration> window = ParseDurationFlag(
        "--batch-window", options.batch_window, absl::ZeroDuration(), absl::Milliseconds(100));
    if (!window.ok())
      return absl::InvalidArgumentError(absl::StrCat(window.status().message(), ", or auto"));
    if (options.busy_poll && *window > absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          "--busy-poll never waits for a batch: leave --batch-window out or give it 0");
    }
    plan.batch_window = plan.batch_window_max = *window;
  }
  plan.busy_poll = options.busy_poll;
  if (plan.busy_poll) plan.batch_window = plan.batch_window_max = absl::ZeroDuration();
  URINGLOAD_ASSIGN_OR_RETURN(
      absl::Duration lag_bound,
      ParseDurationFlag("--schedule-lag-bound", options.schedule_lag_bound, absl::ZeroDuration(),
                        absl::Hours(1), /*min_exclusive=*/true));
  plan.schedule_lag_bound = lag_bound;

  URINGLOAD_RETURN_IF_ERROR(PlanAddresses(options, plan));
  plan.max_connecting = static_cast<uint32_t>(options.max_connecting);
  URINGLOAD_ASSIGN_OR_RETURN(ResponseChecks checks,
                             MakeResponseChecks(options.expect_status, options.expect_body_contains,
                                                options.expect_events, plan.streams));
  plan.checks = std::move(checks);
  return plan;
}

}  // namespace

absl::StatusOr<RunPlan> MakeRunPlan(const RunOptions& options) {
  if (!options.llm.has_value()) {
    if (!options.goodput.empty()) {
      return absl::InvalidArgumentError(
          "--goodput needs --llm: it bounds an answer's tokens (ttft, tpot, itl, e2e)");
    }
    return MakePlanOf(options);
  }
  URINGLOAD_ASSIGN_OR_RETURN(RunOptions request, WithLlmRequest(options));
  URINGLOAD_ASSIGN_OR_RETURN(LlmPlan llm, MakeLlmPlan(options));
  URINGLOAD_ASSIGN_OR_RETURN(RunPlan plan, MakePlanOf(request));
  plan.llm = std::move(llm);
  return plan;
}

}  // namespace uringload::core
