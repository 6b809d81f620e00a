#include "core/serve/server_stats.h"

namespace uringload::core {

void ServerRunStats::Merge(const ServerRunStats& o) {
  MergeCounters<ServerRunStats>(kServerCounters, *this, o);
  for (size_t i = 0; i < faults.size(); ++i) faults[i] += o.faults[i];
}

void ServerStats::ConnectionAccepted() {
  Add(counters_.Of<&ServerRunStats::connections_accepted>());
  uint64_t open = Read(counters_.Of<&ServerRunStats::connections_open>()) + 1;
  Write(counters_.Of<&ServerRunStats::connections_open>(), open);
  if (open > Read(counters_.Of<&ServerRunStats::connections_peak>())) {
    Write(counters_.Of<&ServerRunStats::connections_peak>(), open);
  }
}

ServerRunStats ServerStats::Snapshot() const {
  ServerRunStats s;
  counters_.CopyTo(s);
  for (size_t i = 0; i < faults_.size(); ++i) s.faults[i] = Read(faults_[i]);
  return s;
}

}  // namespace uringload::core
