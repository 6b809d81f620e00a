#include "core/serve/serve_plan.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "core/cpu_pinning.h"
#include "core/plan_limits.h"
#include "net/base/status_macros.h"

namespace uringload::core {
namespace {

constexpr int64_t kMaxBodySize = 64 << 20;

bool IsGrpc(const ServeOptions& o) { return o.grpc || o.grpc_echo; }

absl::StatusOr<int64_t> ParseNonNegativeDuration(absl::string_view text, const std::string& whole) {
  URINGLOAD_ASSIGN_OR_RETURN(
      absl::Duration d, ParseDurationFlag(absl::StrCat("--delay '", whole, "'"), std::string(text),
                                          absl::ZeroDuration(), absl::Hours(1)));
  return absl::ToInt64Nanoseconds(d);
}

absl::Status CheckProbability(const char* flag, double p) {
  if (!(p >= 0.0 && p <= 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " must be a probability in [0, 1]"));
  }
  return absl::OkStatus();
}

absl::StatusOr<FaultPlan> MakeFaultPlan(const ServeOptions& o) {
  FaultPlan f{o.fault_reset,           o.fault_partial,
              o.fault_malformed,       o.fault_stall,
              o.fault_status_rate,     static_cast<int>(o.fault_status.value_or(500)),
              o.fault_no_close_notify, o.fault_rst_stream};
  for (auto [flag, p] : {std::pair{"--fault-reset", f.reset},
                         {"--fault-partial", f.partial},
                         {"--fault-malformed", f.malformed},
                         {"--fault-stall", f.stall},
                         {"--fault-status-rate", f.status},
                         {"--fault-no-close-notify", f.no_close_notify},
                         {"--fault-rst-stream", f.rst_stream}}) {
    URINGLOAD_RETURN_IF_ERROR(CheckProbability(flag, p));
  }
  if (f.reset + f.partial + f.malformed + f.stall + f.status + f.no_close_notify + f.rst_stream >
      1.0 + 1e-9) {
    return absl::InvalidArgumentError("fault probabilities add up to more than 1");
  }
  if (IsGrpc(o) && o.fault_status.has_value() && (*o.fault_status < 1 || *o.fault_status > 16)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc: --fault-status must be a gRPC status 1-16 (14: UNAVAILABLE), got ",
                     *o.fault_status));
  }
  if (!IsGrpc(o) && o.fault_status.has_value() &&
      (*o.fault_status < 100 || *o.fault_status > 999)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--fault-status must be a status code 100-999, got ", *o.fault_status));
  }
  if (f.status > 0 && !o.fault_status.has_value()) {
    return absl::InvalidArgumentError("--fault-status-rate needs --fault-status CODE");
  }
  return f;
}

absl::Status ChooseBody(const ServeOptions& o, ServePlan& plan) {
  if (IsGrpc(o) && (o.body.has_value() || o.body_size.has_value())) {
    return absl::InvalidArgumentError(
        "--grpc answers each call with an empty message or its own: no --body");
  }
  if (o.body.has_value() && o.body_size.has_value()) {
    return absl::InvalidArgumentError("--body and --body-size cannot be used together");
  }
  if (o.body.has_value()) {
    plan.body_mode = ServePlan::BodyMode::kFixed;
    plan.body = *o.body;
  } else if (o.body_size.has_value()) {
    if (*o.body_size < 0 || *o.body_size > kMaxBodySize) {
      return absl::InvalidArgumentError(
          absl::StrCat("--body-size must be between 0 and ", kMaxBodySize));
    }
    plan.body_mode = ServePlan::BodyMode::kFixed;
    plan.body.assign(static_cast<size_t>(*o.body_size), 'x');
  }
  return absl::OkStatus();
}

absl::Status ChooseThreads(const ServeOptions& o, ServePlan& plan) {
  if (o.threads.has_value()) {
    URINGLOAD_RETURN_IF_ERROR(CheckRange("-t/--threads", *o.threads, 1, kMaxThreads));
  }
  URINGLOAD_RETURN_IF_ERROR(CheckRange("--max-connections", o.max_connections, 1, 10'000'000));
  URINGLOAD_RETURN_IF_ERROR(CheckRange("--backlog", o.backlog, 1, 1'000'000));
  plan.backlog = static_cast<int>(o.backlog);
  if (o.cpus.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(std::vector<int> cpus, ParseCpuList(*o.cpus));
    plan.cpus = std::move(cpus);
  }
  uint32_t cpus = plan.cpus.empty() ? OnlineCpus() : static_cast<uint32_t>(plan.cpus.size());
  plan.table_size = DescriptorTableLimit();
  // SO_REUSEPORT spreads connections by hash, not evenly: leave each table 25% headroom.
  uint64_t needed = (o.max_connections * 5 / 4 + plan.table_size - 1) / plan.table_size;
  plan.threads = o.threads.has_value()
                     ? static_cast<uint32_t>(*o.threads)
                     : EvenOverCpus(std::max<uint32_t>(cpus, static_cast<uint32_t>(needed)),
                                    static_cast<uint32_t>(plan.cpus.size()));
  return absl::OkStatus();
}

// --http2 and its settings; the HTTP/2 flags and fault need it.
absl::Status PlanHttp2(const ServeOptions& o, ServePlan& plan) {
  bool h2_flags = o.fault_rst_stream > 0 || o.http2_max_streams != 128 || o.http2_window != 65535 ||
                  o.http2_goaway_after != 0;
  if (h2_flags && !o.http2 && !IsGrpc(o) && !o.http3) {
    return absl::InvalidArgumentError(
        "--fault-rst-stream, --http2-max-streams, --http2-window and --http2-goaway-after need "
        "--http2");
  }
  // RFC 9113 6.5.2: a window above 2^31-1 is an error; 0 streams would refuse every request.
  URINGLOAD_RETURN_IF_ERROR(CheckRange("--http2-max-streams", o.http2_max_streams, 1, 1'000'000));
  if (absl::Status s = CheckRange("--http2-window", o.http2_window, 1, (int64_t{1} << 31) - 1);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckRange("--http2-goaway-after", o.http2_goaway_after, 0, int64_t{1} << 30);
      !s.ok()) {
    return s;
  }
  // gRPC is HTTP/2 (h2c, or h2 by ALPN over TLS).
  plan.http2 = o.http2 || IsGrpc(o);
  plan.grpc = IsGrpc(o);
  plan.grpc_echo = o.grpc_echo;
  plan.http2_max_streams = static_cast<uint32_t>(o.http2_max_streams);
  plan.http2_window = static_cast<uint32_t>(o.http2_window);
  plan.http2_goaway_after = static_cast<uint32_t>(o.http2_goaway_after);
  return absl::OkStatus();
}

// --http3: HTTP/3 over QUIC, which is always TLS (GnuTLS: OpenSSL 3.0 has no QUIC API).
// What has no HTTP/3 form here is refused, not ignored.
absl::Status PlanHttp3(const ServeOptions& o, ServePlan& plan) {
  if (!o.http3) return absl::OkStatus();
  auto refuse = [](const char* what) {
    return absl::InvalidArgumentError(absl::StrCat("--http3: ", what));
  };
  if (o.http2 || IsGrpc(o)) return refuse("serves HTTP/3 only, not with --http2 or --grpc");
  if (!o.unix_sockets.empty()) return refuse("listens on UDP, not with --unix");
  if (!o.tls_cert.has_value()) return refuse("needs --tls-cert and --tls-key (QUIC is TLS)");
  if (o.http2_max_streams != 128 || o.http2_window != 65535) {
    return refuse("--http2-max-streams and --http2-window are HTTP/2's");
  }
  if (o.log_requests.has_value()) return refuse("--log-requests is for HTTP/1.1 and HTTP/2");
  // One worker: a client's datagrams reach the worker whose socket is connected to it, and
  // a new client's first ones reach any listener; one worker keeps both on one ring.
  if (o.threads.has_value() && *o.threads != 1) return refuse("serves on one thread (-t 1)");
  plan.threads = 1;
  plan.http3 = true;
  URINGLOAD_ASSIGN_OR_RETURN(
      std::unique_ptr<net::QuicTlsContext> tls,
      net::QuicTlsContext::Server({.cert_file = *o.tls_cert, .key_file = *o.tls_key}));
  plan.quic_tls = std::move(tls);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DelaySpec> DelaySpec::Parse(const std::string& text) {
  DelaySpec spec;
  absl::string_view t(text);
  if (t == "0" || t.empty()) return spec;
  if (absl::ConsumePrefix(&t, "uniform:")) {
    size_t dash = t.find('-', 1);
    if (dash == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--delay: '", text, "' needs a range, e.g. uniform:0s-3s"));
    }
    URINGLOAD_ASSIGN_OR_RETURN(int64_t low, ParseNonNegativeDuration(t.substr(0, dash), text));
    URINGLOAD_ASSIGN_OR_RETURN(int64_t high, ParseNonNegativeDuration(t.substr(dash + 1), text));
    if (high < low) {
      return absl::InvalidArgumentError(absl::StrCat("--delay: '", text, "' has low > high"));
    }
    return DelaySpec{Kind::kUniform, low, high};
  }
  Kind kind = absl::ConsumePrefix(&t, "exp:") ? Kind::kExponential : Kind::kFixed;
  URINGLOAD_ASSIGN_OR_RETURN(int64_t value, ParseNonNegativeDuration(t, text));
  if (value == 0) return spec;
  return DelaySpec{kind, value, 0};
}

int64_t DelaySpec::SampleNanos(SeededStream& rng) const {
  switch (kind) {
    case Kind::kNone:
      return 0;
    case Kind::kFixed:
      return a_ns;
    case Kind::kUniform:
      return a_ns + static_cast<int64_t>(rng.NextDouble() * static_cast<double>(b_ns - a_ns));
    case Kind::kExponential:
      return static_cast<int64_t>(-std::log1p(-rng.NextDouble()) * static_cast<double>(a_ns));
  }
  return 0;
}

Fault FaultPlan::Draw(SeededStream& rng) const {
  if (!any()) return Fault::kNone;
  double u = rng.NextDouble();
  for (auto [fault, p] : {std::pair{Fault::kReset, reset},
                          {Fault::kPartial, partial},
                          {Fault::kMalformed, malformed},
                          {Fault::kStall, stall},
                          {Fault::kStatus, status},
                          {Fault::kNoCloseNotify, no_close_notify},
                          {Fault::kRstStream, rst_stream}}) {
    if (u < p) return fault;
    u -= p;
  }
  return Fault::kNone;
}

absl::StatusOr<std::vector<net::SocketAddress>> ParseListen(const std::string& text) {
  absl::string_view t(text);
  size_t colon = t.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen: '", text, "' must be ADDR:PORT or ADDR:PORT-PORT"));
  }
  std::string host(t.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  absl::string_view ports = t.substr(colon + 1);
  size_t dash = ports.find('-');
  uint32_t first = 0, last = 0;
  bool ok = absl::SimpleAtoi(ports.substr(0, dash), &first);
  ok = ok && (dash == absl::string_view::npos ? (last = first, true)
                                              : absl::SimpleAtoi(ports.substr(dash + 1), &last));
  if (!ok || first == 0 || last > 65535 || last < first || last - first >= 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--listen: invalid port in '", text, "' (1-65535, ranges like 8080-8083, <= 1024 ports)"));
  }
  std::vector<net::SocketAddress> out;
  for (uint32_t port = first; port <= last; ++port) {
    absl::StatusOr<net::SocketAddress> address = net::Resolve(host, static_cast<uint16_t>(port));
    if (!address.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--listen: ", address.status().message()));
    }
    out.push_back(*address);
  }
  return out;
}

absl::StatusOr<ServePlan> MakeServePlan(const ServeOptions& options) {
  ServePlan plan;
  std::vector<std::string> listen = options.listen;
  if (listen.empty() && options.unix_sockets.empty()) listen.push_back(kDefaultListen);
  for (const std::string& text : listen) {
    URINGLOAD_ASSIGN_OR_RETURN(std::vector<net::SocketAddress> addresses, ParseListen(text));
    plan.listen.insert(plan.listen.end(), addresses.begin(), addresses.end());
  }
  for (const std::string& path : options.unix_sockets) {
    absl::StatusOr<net::SocketAddress> address = net::UnixAddress(path);
    if (!address.ok())
      return absl::InvalidArgumentError(absl::StrCat("--unix: ", address.status().message()));
    plan.listen.push_back(*address);
  }
  URINGLOAD_RETURN_IF_ERROR(ChooseThreads(options, plan));
  URINGLOAD_RETURN_IF_ERROR(ChooseBody(options, plan));
  URINGLOAD_ASSIGN_OR_RETURN(DelaySpec delay, DelaySpec::Parse(options.delay));
  plan.delay = delay;
  if (options.service_slots.has_value()) {
    URINGLOAD_RETURN_IF_ERROR(
        CheckRange("--service-slots", *options.service_slots, 1, kMaxServiceSlots));
    plan.service_slots = static_cast<uint32_t>(*options.service_slots);
  }
  URINGLOAD_ASSIGN_OR_RETURN(FaultPlan faults, MakeFaultPlan(options));
  plan.faults = faults;
  if (options.tls_cert.has_value() != options.tls_key.has_value()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  URINGLOAD_RETURN_IF_ERROR(PlanHttp2(options, plan));
  URINGLOAD_RETURN_IF_ERROR(PlanHttp3(options, plan));
  if (options.tls_cert.has_value() && !plan.http3) {
    URINGLOAD_ASSIGN_OR_RETURN(
        std::shared_ptr<net::TlsContext> tls,
        net::TlsContext::Server(
            {.cert_file = *options.tls_cert, .key_file = *options.tls_key, .http2 = plan.http2}));
    plan.tls = std::move(tls);
  }
  plan.seed = options.seed;
  if (options.log_requests.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(std::shared_ptr<RequestLog> log,
                               RequestLog::Open(*options.log_requests));
    plan.request_log = std::move(log);
  }
  return plan;
}

}  // namespace uringload::core
