// ServerStats: one `serve` worker's counters (single writer, relaxed atomics, readable by the
// reporter); ServerRunStats is the plain, mergeable copy.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "core/serve/serve_plan.h"
#include "core/single_writer.h"

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

class ServerStats {
 public:
  void ConnectionAccepted();
  void ConnectionClosed() { Write(connections_open_, Read(connections_open_) - 1); }
  void RequestReceived() { Add(requests_received_); }
  void RequestAnswered() { Add(requests_answered_); }
  void FaultInjected(Fault f) { Add(faults_[static_cast<size_t>(f)]); }
  void BytesReceived(uint64_t n) { Add(bytes_received_, n); }
  void BytesSent(uint64_t n) { Add(bytes_sent_, n); }
  void TableFull() { Add(table_full_); }
  void BadRequest() { Add(bad_requests_); }
  void PipelineOverflow() { Add(pipeline_overflow_); }
  void TlsHandshake() { Add(tls_handshakes_); }
  void TlsNoCloseNotify() { Add(tls_no_close_notify_); }

  ServerRunStats Snapshot() const;

 private:
  using Counter = SingleWriterCounter;

  Counter connections_accepted_{0}, connections_open_{0}, connections_peak_{0};
  Counter requests_received_{0}, requests_answered_{0};
  std::array<Counter, kFaultKinds> faults_{};
  Counter bytes_received_{0}, bytes_sent_{0};
  Counter table_full_{0}, bad_requests_{0}, pipeline_overflow_{0};
  Counter tls_handshakes_{0}, tls_no_close_notify_{0};
};

}  // namespace uringload::core
