// ServerStats: one `serve` worker's counters (single writer, relaxed atomics, readable by the
// reporter); ServerRunStats (core/serve/server_run_stats.h) is the plain, mergeable copy, and
// the single-number counters are kept by their row of core/serve/server_counters.h.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "core/serve/serve_plan.h"
#include "core/serve/server_counters.h"
#include "core/serve/server_run_stats.h"
#include "core/single_writer.h"

namespace uringload::core {

class ServerStats {
 public:
  void ConnectionAccepted();
  void ConnectionClosed() { counters_.Down<&ServerRunStats::connections_open>(); }
  void RequestReceived() { Add(counters_.Of<&ServerRunStats::requests_received>()); }
  void RequestAnswered() { Add(counters_.Of<&ServerRunStats::requests_answered>()); }
  void FaultInjected(Fault f) { Add(faults_[static_cast<size_t>(f)]); }
  void BytesReceived(uint64_t n) { Add(counters_.Of<&ServerRunStats::bytes_received>(), n); }
  void BytesSent(uint64_t n) { Add(counters_.Of<&ServerRunStats::bytes_sent>(), n); }
  void TableFull() { Add(counters_.Of<&ServerRunStats::table_full>()); }
  void BadRequest() { Add(counters_.Of<&ServerRunStats::bad_requests>()); }
  void PipelineOverflow() { Add(counters_.Of<&ServerRunStats::pipeline_overflow>()); }
  void TlsHandshake() { Add(counters_.Of<&ServerRunStats::tls_handshakes>()); }
  void TlsNoCloseNotify() { Add(counters_.Of<&ServerRunStats::tls_no_close_notify>()); }

  ServerRunStats Snapshot() const;

 private:
  using Counter = SingleWriterCounter;

  // The live counters of the rows (core/serve/server_counters.h).
  RowCounters<ServerRunStats, kServerCounters> counters_;
  std::array<Counter, kFaultKinds> faults_{};
};

}  // namespace uringload::core
