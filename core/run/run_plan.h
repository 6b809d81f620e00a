// RunPlan: everything a `uringload run` needs, validated once and immutable afterwards.
// RunOptions holds the raw command-line values; MakeRunPlan checks and resolves them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/flow/flow_program.h"
#include "core/plan_limits.h"
#include "core/run/arrival_schedule.h"
#include "core/run/data_file.h"
#include "core/run/plan_llm.h"
#include "core/run/response_checks.h"
#include "core/run/shard.h"
#include "net/address.h"
#include "net/tls_context.h"
#include "proto/event_stream_parser.h"
#include "proto/http2_client_session.h"
#include "proto/request_template.h"
#include "proto/url.h"

namespace uringload::net {
class QuicTlsContext;  // net/quic_tls.h: GnuTLS stays out of this header.
}  // namespace uringload::net

namespace uringload::core {

inline constexpr uint64_t kDefaultRequests = 1000;
// Documented maxima (README, --help). -n stays below 2^53 so every count in the JSON is an
// exact integer even for readers that parse numbers as doubles (JavaScript, jq).
inline constexpr int64_t kMaxRequests = 1'000'000'000'000'000;
inline constexpr int64_t kMaxConcurrency = 10'000'000;
inline constexpr int64_t kMaxConnecting = 65536;
// Timeouts and durations: far beyond any run, far below int64 nanoseconds overflowing.
inline constexpr absl::Duration kMaxTimeout = absl::Hours(24);
inline constexpr absl::Duration kMaxDuration = absl::Hours(24 * 365);
// --flow over several origins: the connections a virtual user holds at once, one per origin
// (as a browser's per-host pools, bounded); past it, the one used least recently goes.
inline constexpr int64_t kDefaultMaxOriginsPerUser = 6;
inline constexpr int64_t kMaxMaxOriginsPerUser = 64;

struct RunOptions {
  std::string url;
  std::optional<int64_t> requests;      // -n
  std::optional<std::string> duration;  // -d, absl duration syntax
  int64_t concurrency = 100;
  std::optional<int64_t> threads;
  std::optional<std::string> cpus;  // --cpus, taskset's list syntax
  std::string method = "GET";
  std::vector<std::string> headers;
  std::optional<std::string> body;
  std::optional<std::string> body_file;
  bool body_file_placeholders = false;       // --body-file and @file bodies are templates too.
  std::optional<std::string> expect_status;  // --expect-status 200,2xx
  std::optional<std::string> expect_body_contains;           // --expect-body-contains TEXT
  std::optional<std::string> flow_file;                      // --flow FILE
  std::optional<std::string> replay_file;                    // --replay FILE
  std::string replay_speed = "1x";                           // --replay-speed
  int64_t max_var_bytes = kDefaultMaxVarBytes;               // --max-var-bytes
  int64_t max_cookie_bytes = kDefaultMaxCookieBytes;         // --max-cookie-bytes
  int64_t max_origins_per_user = kDefaultMaxOriginsPerUser;  // --max-origins-per-user
  std::string timeout = "30s";
  std::string connect_timeout = "5s";
  std::string batch_window = "auto";  // A duration, or auto (see RunPlan::batch_window_max).
  std::string schedule_lag_bound = "1ms";
  bool busy_poll = false;  // --busy-poll: workers poll their rings instead of sleeping.
  bool no_keepalive = false;
  std::optional<std::string> source;       // --source list, range or CIDR.
  std::optional<std::string> unix_socket;  // --unix: connect here; the URL gives Host and path.
  int64_t max_connecting = 1024;           // Connects in flight per worker (the ramp).
  std::optional<std::string> rate;         // -R: requests per second in total (open model).
  std::optional<std::string> ramp;         // --ramp: rises linearly from 0 to -R over this.
  std::optional<std::string> arrival;      // --arrival: even, poisson or gamma:K.
  std::string stream = "none";             // --stream: none, sse or ndjson.
  std::optional<int64_t> expect_events;    // --expect-events N
  // --llm chat|completions, its model, --max-tokens (a number or a --data column), the
  // prompt's column, --goodput bounds.
  std::optional<std::string> llm;
  std::optional<std::string> model;
  std::string max_tokens = "128";
  std::string data_field = "prompt";
  std::vector<std::string> goodput;
  int64_t pipeline = 1;  // -p: requests written back-to-back per connection.
  std::optional<std::string> targets_file;
  std::string targets_order = "round-robin";
  int64_t seed = 1;
  int64_t max_target_labels = 50;         // --max-target-labels
  std::optional<std::string> data_file;   // --data
  std::string data_order = "sequential";  // --data-order
  std::optional<std::string> warmup;
  // https:// only.
  bool insecure = false;  // -k: no certificate verification.
  std::optional<std::string> cacert;
  bool no_tls_resume = false;
  std::optional<std::string> tls_max_version;
  std::optional<std::string> ciphers;
  std::optional<std::string> ciphersuites;
  // --shard K/S (the command line resolves `auto` from the environment first).
  std::optional<std::string> shard;
  std::optional<std::string> start_at;        // --start-at
  bool preconnect = false;                    // --preconnect
  bool http1 = false;                         // --http1.1
  bool http2 = false;                         // --http2
  bool http3 = false;                         // --http3
  bool zero_rtt = false;                      // --0rtt
  std::optional<int64_t> http2_window;        // --http2-window
  std::optional<int64_t> http2_header_table;  // --http2-header-table
  // gRPC: --grpc package.Service/Method, its schema from --proto (with --import-path) or
  // --protoset; the request message from --body or --body-file as JSON.
  std::optional<std::string> grpc_method;
  std::optional<std::string> proto_file;
  std::vector<std::string> import_paths;
  std::optional<std::string> protoset_file;
  // --stream-messages: the request messages of each client-streaming or bidirectional call.
  std::optional<int64_t> stream_messages;
};

// Which HTTP the connections speak: kAuto is HTTP/1.1 over http://, and over https:// what
// the server picks by ALPN (h2 or http/1.1); kHttp3 is HTTP/3 over QUIC (UDP).
enum class HttpVersion : uint8_t { kAuto, kHttp1, kHttp2, kHttp3 };

// One request of the plan: the URL's (with -m, -H, --body), or one line of --targets.
struct TargetRequest {
  int line = 0;           // In the --targets file; 0 for the command line's URL.
  std::string name = {};  // name=, or empty.
  std::string method;
  std::string url;  // As given.
  proto::Url parsed;
  proto::RequestSpec spec;  // Host header of the first address; see RequestFor.
  uint16_t origin = 0;      // Index into RunPlan::origins (a flow's step may go to any).
};

// Where a target's connections go: a scheme, host and port. A run has one; a flow's steps
// may go to several (a site, its API, a CDN), each user holding a connection per origin.
struct Origin {
  proto::Url url;
  net::SocketAddress address;  // Resolved (the first origin uses RunPlan::addresses).
};

inline constexpr int64_t kMaxPipeline = 1024;
inline constexpr int64_t kMaxHttp2Window = (int64_t{1} << 31) - 1;  // RFC 9113 6.9.1.
// The largest --http2-header-table: what nghttp2 keeps per connection grows with it.
inline constexpr int64_t kMaxHttp2HeaderTable = int64_t{1} << 20;
inline constexpr double kMaxRate = 1e9;
inline constexpr int64_t kMaxTargetLines = 1'000'000;
inline constexpr int64_t kMaxTargetLabels = 10'000;
inline constexpr std::string_view kOtherTarget = "other";

struct RunPlan {
  proto::Url url;  // The first target's: every target but a flow's shares its host and ports.
  std::vector<net::SocketAddress> addresses;  // One per port of the URL's port range.
  // --flow: every origin its steps go to, origins[0] the first (url); one port each when
  // there are several. Other runs: url's alone.
  std::vector<Origin> origins;
  // Connections a virtual user holds at once: min(origins, --max-origins-per-user); 1 but for
  // a flow over several origins. Each worker has concurrency x lanes connection slots.
  uint32_t lanes = 1;
  std::vector<net::SocketAddress> sources;  // --source; empty: the kernel chooses.
  std::vector<TargetRequest> targets;       // At least one.
  // Per-target results (--targets): each name= (or each unnamed line, by "METHOD URL") is a
  // target, in order of first appearance; past --max-target-labels the rest are one, "other".
  // target_of[k]: the target of targets[k]. Empty without --targets.
  std::vector<std::string> target_names;
  std::vector<uint32_t> target_of;
  bool random_order = false;      // --targets-order random.
  bool sequential_order = false;  // --targets-order sequential: each target once.
  uint64_t seed = 1;
  // --data: the rows whose columns the templates may name; request k takes row k mod rows, or
  // with --data-order random a seeded pick per index.
  std::shared_ptr<const DataFile> data;
  bool random_rows = false;
  bool keep_alive = true;
  // What a complete response must be to end ok (else check_failed): none by default.
  ResponseChecks checks;
  // --flow: each connection is a virtual user running the flows' iterations (-n counts
  // iterations); each step is a target, named by the step. Templates render the columns of
  // flow_columns: --data's, the variables, then the Cookie line.
  std::shared_ptr<const FlowProgram> flow;
  std::vector<std::string> flow_columns;
  std::vector<size_t> flow_column_sizes;
  std::shared_ptr<net::TlsContext> tls;  // https://: one context for every connection.
  // --http3: QUIC's TLS (GnuTLS), one context for every connection (then `tls` is null).
  std::shared_ptr<net::QuicTlsContext> quic_tls;
  bool quic_resume = true;           // --http3: resume the session of an earlier connection.
  bool quic_zero_rtt = false;        // --0rtt: and send the requests in 0-RTT.
  std::optional<uint64_t> requests;  // Exact count, or none (duration only).
  std::optional<absl::Duration> duration;
  uint32_t concurrency = 100;            // Connections that will open: -c, at most -n.
  uint32_t requested_concurrency = 100;  // -c as given.
  uint32_t threads = 1;
  std::vector<int> cpus;  // --cpus: worker i runs on cpus[i % size]; empty: not pinned.
  absl::Duration timeout = absl::Seconds(30);
  absl::Duration connect_timeout = absl::Seconds(5);
  // How long a worker may wait to collect completions into one batch (0: never waits). A
  // given --batch-window sets both; auto is 200 us, and with -p the window follows a quarter of
  // the mean latency of recent responses up to batch_window_max, 400 us (see BatchPolicy): a
  // response's latency grows by at most batch_window_max.
  absl::Duration batch_window = absl::Microseconds(200);
  absl::Duration batch_window_max = absl::Microseconds(200);
  // Workers never sleep: each polls its ring between completions, sends leave at their due
  // time within the machine's scheduling noise, and a worker takes a whole CPU (no batch wait).
  bool busy_poll = false;
  // Open model: a schedule lag p99 over this means the client could not keep its schedule
  // (core/run/generator_check.h).
  absl::Duration schedule_lag_bound = absl::Milliseconds(1);
  // Connects in flight per worker: a ramp, so SYN and accept queues never overflow.
  uint32_t max_connecting = 1024;
  // Open model: requests start on a schedule of `rate` per second (after a linear `ramp`);
  // none: closed model, each connection sends its next request when the last one ended.
  std::optional<double> rate;
  absl::Duration ramp = absl::ZeroDuration();
  // --arrival: evenly spaced, or random gaps of the same mean (seeded from --seed and the
  // shard, so shards do not arrive together).
  ArrivalProcess arrival;
  // --stream: each response's body is read as a stream of events (server-sent events or
  // NDJSON lines), timed as they arrive (core/run/stream_meter.h).
  proto::EventFormat stream = proto::EventFormat::kSse;
  bool streams = false;
  // --llm: the answers' tokens are read from the stream (TTFT, ITL, TPOT, goodput).
  std::optional<LlmPlan> llm;
  // --replay: request k is due at replay_offsets[k] (the log's times over --replay-speed);
  // `rate` is then their mean rate, for what reports it.
  std::shared_ptr<const std::vector<int64_t>> replay_offsets;
  HttpVersion http = HttpVersion::kAuto;
  // Requests in flight per connection: pipelined over HTTP/1.1, concurrent streams over HTTP/2.
  uint32_t pipeline = 1;
  // --grpc: every request is a gRPC call over HTTP/2; a call that ends with a grpc-status is
  // ok, counted by that status (RunStats::grpc_status).
  bool grpc = false;
  // HTTP/2: the receive window announced per stream and for the connection (--http2-window).
  uint32_t http2_window = proto::kHttp2DefaultWindow;
  // HTTP/2: SETTINGS_HEADER_TABLE_SIZE, the client's HPACK table (--http2-header-table).
  uint32_t http2_header_table = proto::kHttp2DefaultHeaderTable;
  absl::Duration warmup = absl::ZeroDuration();  // Requests started before this are unmeasured.
  // This process's part of a sharded run: -n, -c and -R above are already its shares. Its
  // local request k is the fleet's request index_base + k * index_stride: a contiguous range
  // of -n, or with -d alone every S-th index from K.
  Shard shard;
  uint64_t index_base = 0;
  uint64_t index_stride = 1;
  uint64_t GlobalIndex(uint64_t local) const { return index_base + local * index_stride; }
  // --start-at: set up everything, then begin at this moment (shards start together).
  std::optional<absl::Time> start_at;
  // --preconnect (with --start-at): every connection opens during the wait for the start.
  bool preconnect = false;

  // Target `target`'s request on address `address` (its own Host header for a port range).
  proto::RequestSpec RequestFor(size_t target, size_t address) const;
  // Where a connection to `origin` on its `address` (a port of the first origin's range) goes.
  const net::SocketAddress& AddressOf(uint16_t origin, uint16_t address) const {
    return origin == 0 ? addresses[address] : origins[origin].address;
  }
  const proto::Url& UrlOf(uint16_t origin) const { return origin == 0 ? url : origins[origin].url; }
  // Whether any origin is https:// (then `tls` is set).
  bool any_tls() const {
    for (const Origin& o : origins) {
      if (o.url.tls) return true;
    }
    return url.tls;
  }
  // Which target request `index` sends: round-robin, or a fixed pseudo-random pick per index
  // (the same index always picks the same target, whichever worker sends it).
  size_t TargetOf(uint64_t index) const;
  // The data row request `index` takes (data must be set).
  uint64_t RowOf(uint64_t index) const;
  // The columns a template may name (none without --data).
  proto::TemplateColumns columns() const;
  // Connections times requests per connection: the cap on requests in flight.
  uint64_t max_in_flight() const { return uint64_t{concurrency} * pipeline; }
  // Whether a connection may speak HTTP/2: --http2, or https:// without --http1.1 (ALPN).
  bool may_speak_http2() const {
    return http == HttpVersion::kHttp2 || (any_tls() && http == HttpVersion::kAuto);
  }
};

// Validates options and resolves the host. Errors are one line naming the problem.
absl::StatusOr<RunPlan> MakeRunPlan(const RunOptions& options);

// Concurrency of worker `index` when `total` connections are spread over `workers`, and the
// global index of its first connection.
uint32_t ConnectionsForWorker(uint32_t total, uint32_t workers, uint32_t index);
uint32_t FirstConnectionOfWorker(uint32_t total, uint32_t workers, uint32_t index);

}  // namespace uringload::core
