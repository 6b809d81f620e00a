#include "core/run/stream_meter.h"

namespace uringload::core {

StreamMeter::StreamMeter(proto::EventFormat format, size_t entries, WorkerStats* stats,
                         const int64_t* now, bool open_model)
    : stats_(stats), now_(now), open_model_(open_model) {
  entries_.reserve(entries);
  for (size_t i = 0; i < entries; ++i) {
    entries_.push_back({.parser = proto::EventStreamParser(format)});
    entries_.back().parser.SetDataCapacity(0);  // Counted and timed; the data is not kept.
  }
}

void StreamMeter::Begin(uint32_t entry) {
  Entry& e = entries_[entry];
  e.parser.Reset();
  e.last_event_ns = 0;
  e.events = 0;
  e.done = false;
}

void StreamMeter::OnBody(uint32_t entry, const PendingRequest& r, std::string_view bytes) {
  Entry& e = entries_[entry];
  while (!bytes.empty()) {
    proto::EventStreamParser::Step step = e.parser.Feed(bytes);
    bytes.remove_prefix(step.consumed);
    if (!step.event) continue;
    ++e.events;
    e.done = e.done || e.parser.event().done;
    if (r.warmup) continue;
    int64_t start = open_model_ ? r.intended_ns : r.sent_ns;
    bool first = e.last_event_ns == 0;
    stats_->EventArrived(first, static_cast<uint64_t>(*now_ - (first ? start : e.last_event_ns)));
    e.last_event_ns = *now_;
  }
}

void StreamMeter::Completed(uint32_t entry, const PendingRequest& r) {
  const Entry& e = entries_[entry];
  if (r.warmup || e.events == 0) return;
  stats_->StreamCompleted(e.done);
}

}  // namespace uringload::core
