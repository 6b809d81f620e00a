#include "core/serve/server_stats.h"

namespace uringload::core {

void ServerRunStats::Merge(const ServerRunStats& o) {
  connections_accepted += o.connections_accepted;
  connections_open += o.connections_open;
  connections_peak += o.connections_peak;
  requests_received += o.requests_received;
  requests_answered += o.requests_answered;
  for (size_t i = 0; i < faults.size(); ++i) faults[i] += o.faults[i];
  bytes_received += o.bytes_received;
  bytes_sent += o.bytes_sent;
  table_full += o.table_full;
  bad_requests += o.bad_requests;
  pipeline_overflow += o.pipeline_overflow;
  tls_handshakes += o.tls_handshakes;
  tls_no_close_notify += o.tls_no_close_notify;
}

void ServerStats::ConnectionAccepted() {
  Add(connections_accepted_);
  uint64_t open = Read(connections_open_) + 1;
  Write(connections_open_, open);
  if (open > Read(connections_peak_)) Write(connections_peak_, open);
}

ServerRunStats ServerStats::Snapshot() const {
  ServerRunStats s;
  s.connections_accepted = Read(connections_accepted_);
  s.connections_open = Read(connections_open_);
  s.connections_peak = Read(connections_peak_);
  s.requests_received = Read(requests_received_);
  s.requests_answered = Read(requests_answered_);
  for (size_t i = 0; i < faults_.size(); ++i) s.faults[i] = Read(faults_[i]);
  s.bytes_received = Read(bytes_received_);
  s.bytes_sent = Read(bytes_sent_);
  s.table_full = Read(table_full_);
  s.bad_requests = Read(bad_requests_);
  s.pipeline_overflow = Read(pipeline_overflow_);
  s.tls_handshakes = Read(tls_handshakes_);
  s.tls_no_close_notify = Read(tls_no_close_notify_);
  return s;
}

}  // namespace uringload::core
