#include "core/serve/server_stats.h"

namespace uringload::core {

void ServerRunStats::Merge(const ServerRunStats& o) {
  MergeCounters<ServerRunStats>(kServerCounters, *this, o);
  for (size_t i = 0; i < faults.size(); ++i) faults[i] += o.faults[i];
}

void ServerStats::ConnectionAccepted() {
  Add(counters_.Of<&ServerRunStats::connections_accepted>());
  counters_.Up<&ServerRunStats::connections_open, &ServerRunStats::connections_peak>();
}

ServerRunStats ServerStats::Snapshot() const {
  ServerRunStats s;
  counters_.CopyTo(s);
  for (size_t i = 0; i < faults_.size(); ++i) s.faults[i] = Read(faults_[i]);
  return s;
}

}  // namespace uringload::core
