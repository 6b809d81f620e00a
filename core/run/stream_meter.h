// StreamMeter: the events of streamed responses (--stream sse|ndjson), timed as they arrive.
// Each request's response body goes through an event stream parser (proto/event_stream_parser.h)
// of its own entry (a connection's, or an HTTP/2 or HTTP/3 stream's: connections × -p entries,
// made once); each event is stamped with the clock of the completions that brought it: the
// request's time to its first event (from its start, as its latency) and the gap since its
// event before. An ok response's events are counted when it ends.
//
// --llm: each event's data is also scanned as JSON as it is parsed (nothing kept): a delta
// whose content is a non-empty string is a token (a role-only or empty delta is not), timed
// the same way (TTFT, ITL); the usage chunk's token counts are read; at the answer's end its
// TPOT, tokens and the --goodput verdict are recorded.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/run/connection.h"
#include "core/run/plan_llm.h"
#include "core/run/worker_stats.h"
#include "proto/event_stream_parser.h"
#include "proto/json_pointer_scanner.h"

namespace uringload::core {

class StreamMeter {
 public:
  // `entries`: connections × -p; `now`: the clock after the last wait; `open_model`: a
  // request's start is its intended one; `llm`: read the answers' tokens (none: not).
  StreamMeter(proto::EventFormat format, size_t entries, WorkerStats* stats, const int64_t* now,
              bool open_model, const LlmPlan* llm = nullptr);
  StreamMeter(const StreamMeter&) = delete;
  StreamMeter& operator=(const StreamMeter&) = delete;

  // Entry `entry` starts reading the response to `r` (a new stream of events).
  void Begin(uint32_t entry);
  // Bytes of the body of the response to `r`, read in entry `entry`.
  void OnBody(uint32_t entry, const PendingRequest& r, std::string_view bytes);
  // The response to `r` in entry `entry` ended ok: its events are counted.
  void Completed(uint32_t entry, const PendingRequest& r);
  // Events the response in `entry` carried so far.
  uint64_t events(uint32_t entry) const { return entries_[entry].events; }

 private:
  // --llm: an answer's tokens, read from its events' data.
  struct Tokens final : proto::EventDataSink {
    const proto::JsonPointerSet* pointers = nullptr;
    proto::JsonPointerScanner scanner;
    std::array<char, 4> content{};  // Only whether there is any.
    std::array<char, 24> completion{};
    std::array<char, 24> prompt{};
    std::array<proto::JsonCapture, 3> captures{};
    int64_t first_ns = 0;
    int64_t last_ns = 0;
    int64_t longest_gap_ns = 0;
    uint64_t deltas = 0;
    std::optional<uint64_t> output;  // From the usage chunk.
    std::optional<uint64_t> input;
    void OnEventData(std::string_view piece, bool first) override;
  };
  struct Entry {
    proto::EventStreamParser parser;
    int64_t last_event_ns = 0;
    uint64_t events = 0;
    bool done = false;
    Tokens tokens;
  };
  void ReadTokens(Entry& e, const PendingRequest& r, int64_t start);
  void CompleteAnswer(Entry& e, const PendingRequest& r);

  std::vector<Entry> entries_;
  WorkerStats* stats_;
  const int64_t* now_;
  bool open_model_;
  const LlmPlan* llm_;
  proto::JsonPointerSet pointers_;  // Content, completion_tokens, prompt_tokens.
};

}  // namespace uringload::core
