// ServePlan: the validated configuration of `uringload serve`: listen addresses (port ranges
// expanded), worker count, response body, delay distribution and fault probabilities.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/serve/request_log.h"
#include "net/address.h"
#include "net/base/seeded_random.h"
#include "net/quic_tls.h"
#include "net/tls_context.h"

namespace uringload::core {

// How long each request waits before its response: none, fixed, uniform or exponential.
struct DelaySpec {
  enum class Kind { kNone, kFixed, kUniform, kExponential };
  Kind kind = Kind::kNone;
  int64_t a_ns = 0;  // fixed value, uniform low bound, or exponential mean
  int64_t b_ns = 0;  // uniform high bound

  static absl::StatusOr<DelaySpec> Parse(const std::string& text);
  int64_t SampleNanos(SeededStream& rng) const;
};

// kNoCloseNotify closes without answering like kReset, but over TLS without close_notify.
enum class Fault : uint8_t {
  kNone = 0,
  kReset,
  kPartial,
  kMalformed,
  kStall,
  kStatus,
  kNoCloseNotify,
  kRstStream,  // HTTP/2: RST_STREAM(INTERNAL_ERROR) instead of the response.
};
inline constexpr size_t kFaultKinds = 8;
inline constexpr const char* kFaultNames[kFaultKinds] = {
    "none", "reset", "partial", "malformed", "stall", "status", "no_close_notify", "rst_stream"};

struct FaultPlan {
  double reset = 0, partial = 0, malformed = 0, stall = 0, status = 0;
  int status_code = 500;
  double no_close_notify = 0;
  double rst_stream = 0;
  bool any() const {
    return reset + partial + malformed + stall + status + no_close_notify + rst_stream > 0;
  }
  // One draw decides a request's fate; probabilities are disjoint slices of [0, 1).
  Fault Draw(SeededStream& rng) const;
};

// The most --service-slots: the queue keeps a time per slot.
inline constexpr int64_t kMaxServiceSlots = 1'000'000;

inline constexpr char kDefaultListen[] = "127.0.0.1:8080";

struct ServeOptions {
  std::vector<std::string> listen;        // Empty: kDefaultListen, unless unix_sockets is not.
  std::vector<std::string> unix_sockets;  // --unix PATH
  std::optional<int64_t> threads;
  std::optional<std::string> cpus;  // --cpus, taskset's list syntax
  int64_t backlog = 65535;
  int64_t max_connections = 60000;
  std::string delay = "0";
  std::optional<int64_t> service_slots;  // --service-slots
  std::optional<std::string> body;
  std::optional<int64_t> body_size;
  double fault_reset = 0, fault_partial = 0, fault_malformed = 0, fault_stall = 0;
  std::optional<int64_t> fault_status;
  double fault_status_rate = 0;
  double fault_no_close_notify = 0;
  double fault_rst_stream = 0;
  bool http2 = false;      // --http2
  bool http3 = false;      // --http3
  bool grpc = false;       // --grpc
  bool grpc_echo = false;  // --grpc-echo
  int64_t http2_max_streams = 128;
  int64_t http2_window = 65535;
  int64_t http2_goaway_after = 0;  // 0: never
  uint64_t seed = 1;
  std::optional<std::string> tls_cert;  // PEM; with tls_key, every listener speaks TLS.
  std::optional<std::string> tls_key;
  std::optional<std::string> log_requests;  // --log-requests FILE
};

struct ServePlan {
  std::vector<net::SocketAddress> listen;
  uint32_t threads = 1;
  // --cpus: worker i runs on cpus[i % size] and its listeners take the connections whose SYN
  // arrives on that CPU (core/cpu_pinning.h); empty: not pinned.
  std::vector<int> cpus;
  uint32_t table_size = 0;  // Direct descriptors per worker ring.
  int backlog = 65535;
  enum class BodyMode { kEcho, kFixed } body_mode = BodyMode::kEcho;
  std::string body;  // For kFixed.
  DelaySpec delay;
  // --service-slots: at most this many requests in service at once per worker, each for its
  // delay; the others wait in arrival order (ServiceQueue). 0: no limit.
  uint32_t service_slots = 0;
  FaultPlan faults;
  uint64_t seed = 1;
  std::shared_ptr<net::TlsContext> tls;  // --tls-cert/--tls-key: one context for all.
  // --http2: h2c with prior knowledge on plain listeners; over TLS h2 or HTTP/1.1 by ALPN.
  bool http2 = false;
  uint32_t http2_max_streams = 128;  // SETTINGS_MAX_CONCURRENT_STREAMS
  uint32_t http2_window = 65535;     // SETTINGS_INITIAL_WINDOW_SIZE
  uint32_t http2_goaway_after = 0;   // GOAWAY after this many streams of a connection (0: never)
  // --grpc (HTTP/2): every stream is a gRPC call, answered with an empty message and
  // grpc-status OK, or its fault: faults.status_code is then a gRPC status (1-16).
  bool grpc = false;
  bool grpc_echo = false;  // --grpc-echo: the call's own messages instead of the empty one.
  // --http3: HTTP/3 over QUIC on UDP listeners, TLS by quic_tls (GnuTLS; `tls` stays null),
  // served by one worker; http2_goaway_after applies to its GOAWAY too.
  bool http3 = false;
  std::shared_ptr<net::QuicTlsContext> quic_tls;
  std::shared_ptr<RequestLog> request_log;  // --log-requests: every request received.
};

absl::StatusOr<ServePlan> MakeServePlan(const ServeOptions& options);

// "127.0.0.1:8080", "[::1]:80" or a port range "127.0.0.1:8080-8083" -> addresses.
absl::StatusOr<std::vector<net::SocketAddress>> ParseListen(const std::string& text);

}  // namespace uringload::core
