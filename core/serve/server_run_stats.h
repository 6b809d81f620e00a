// ServerRunStats: serve's results as plain, mergeable numbers: a copy of the workers'
// counters (ServerStats::Snapshot). Its single-number counters are rows of
// core/serve/server_counters.h.
#pragma once

#include <array>
#include <cstdint>

#include "core/serve/serve_plan.h"

namespace uringload::core {

struct ServerRunStats {
  uint64_t connections_accepted = 0;
  uint64_t connections_open = 0;
  uint64_t connections_peak = 0;  // Sum of per-worker peaks.
  uint64_t requests_received = 0;
  uint64_t requests_answered = 0;              // Complete responses sent (200 or --fault-status).
  std::array<uint64_t, kFaultKinds> faults{};  // Indexed by Fault; [0] unused.
  uint64_t bytes_received = 0;
  uint64_t bytes_sent = 0;
  uint64_t table_full = 0;         // Accepts refused: the worker's descriptor table was full.
  uint64_t bad_requests = 0;       // Unparseable requests (connection closed).
  uint64_t pipeline_overflow = 0;  // Connections closed for pipelining too deep.
  uint64_t tls_handshakes = 0;
  uint64_t tls_no_close_notify = 0;  // Clients that closed without close_notify.

  void Merge(const ServerRunStats& other);
};

}  // namespace uringload::core
