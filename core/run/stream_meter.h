// StreamMeter: the events of streamed responses (--stream sse|ndjson), timed as they arrive.
// Each request's response body goes through an event stream parser (proto/event_stream_parser.h)
// of its own entry (a connection's, or an HTTP/2 or HTTP/3 stream's: connections × -p entries,
// made once); each event is stamped with the clock of the completions that brought it: the
// request's time to its first event (from its start, as its latency) and the gap since its
// event before. An ok response's events are counted when it ends.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/run/connection.h"
#include "core/run/worker_stats.h"
#include "proto/event_stream_parser.h"

namespace uringload::core {

class StreamMeter {
 public:
  // `entries`: connections × -p; `now`: the clock after the last wait; `open_model`: a
  // request's start is its intended one.
  StreamMeter(proto::EventFormat format, size_t entries, WorkerStats* stats, const int64_t* now,
              bool open_model);

  // Entry `entry` starts reading the response to `r` (a new stream of events).
  void Begin(uint32_t entry);
  // Bytes of the body of the response to `r`, read in entry `entry`.
  void OnBody(uint32_t entry, const PendingRequest& r, std::string_view bytes);
  // The response to `r` in entry `entry` ended ok: its events are counted.
  void Completed(uint32_t entry, const PendingRequest& r);
  // Events the response in `entry` carried so far.
  uint64_t events(uint32_t entry) const { return entries_[entry].events; }

 private:
  struct Entry {
    proto::EventStreamParser parser;
    int64_t last_event_ns = 0;
    uint64_t events = 0;
    bool done = false;
  };
  std::vector<Entry> entries_;
  WorkerStats* stats_;
  const int64_t* now_;
  bool open_model_;
};

}  // namespace uringload::core
