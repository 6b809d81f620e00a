// EventStreamParser: the events of a streamed response body, in the pieces the body arrives in
// (a read, a DATA frame; an event or a line split anywhere, even between a CR and its LF).
//
// Server-sent events as the WHATWG HTML standard interprets an event stream (§9.2.6): lines end
// in CRLF, LF or CR; a leading BOM is dropped; `:` starts a comment; `data` lines append their
// value and a LF to the event's data, `event` sets its type, `id` and `retry` are read and not
// kept; one space after the colon is dropped; an empty line dispatches the event when it has
// data (and otherwise only resets it); an event cut off by the stream's end is never
// dispatched. NDJSON (Ollama's API, log tails): each non-empty line (its CR dropped) is an
// event whose data is the line, a leading BOM dropped as well (RFC 8259 lets a parser ignore
// it).
//
// No allocation per event: the data is kept in a buffer sized once (SetDataCapacity; beyond
// it the event says truncated), and without one only its size and first bytes are kept, which
// is enough to count events and to tell the OpenAI stream's `[DONE]`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace uringload::proto {

enum class EventFormat : uint8_t { kSse, kNdjson };

// Sees each event's data as it is parsed, in pieces (`first`: the event's first piece), before
// the event is dispatched: a JSON scan of every chunk of an LLM's answer, with nothing kept.
class EventDataSink {
 public:
  virtual void OnEventData(std::string_view piece, bool first) = 0;

 protected:
  ~EventDataSink() = default;
};

// One dispatched event; its views stay valid until the next Feed or Reset.
struct StreamEvent {
  std::string_view type;   // SSE's `event` field ("" for none: a "message"); NDJSON: "".
  std::string_view data;   // As kept (SetDataCapacity), without the last LF; else "".
  size_t data_size = 0;    // Its whole size, kept or not.
  bool truncated = false;  // More than the data capacity came.
  bool done = false;       // The data is exactly "[DONE]" (the OpenAI stream's end).
};

class EventStreamParser {
 public:
  static constexpr size_t kMaxTypeBytes = 64;  // A longer `event` type is cut to this.

  explicit EventStreamParser(EventFormat format = EventFormat::kSse) : format_(format) {}

  // Keeps up to `bytes` of each event's data (0: none); allocates once, here.
  void SetDataCapacity(size_t bytes);
  // `sink` sees every event's data as it comes (none: not); it must outlive the parser's use.
  void SetDataSink(EventDataSink* sink) { sink_ = sink; }
  // A new stream (a new response): nothing pending, a BOM may come first.
  void Reset();

  struct Step {
    size_t consumed = 0;  // Bytes of the input read, through the end of the event if any.
    bool event = false;   // An event was dispatched: event() holds it.
  };
  // Reads `data` until an event is dispatched or the input ends; call again with the rest.
  Step Feed(std::string_view data);
  const StreamEvent& event() const { return event_; }
  // Bytes of an event (or line) begun and not dispatched: what the stream's end would cut.
  bool pending() const { return pending_; }

 private:
  enum class Field : uint8_t { kUnknown, kData, kEvent, kOther, kComment };
  bool EndLine();
  void StartValue();
  void AppendData(std::string_view bytes);
  void Dispatch();
  void ClearEvent();

  EventFormat format_;
  // The line being read: its field's name so far (the longest kept, "event", is 5 bytes),
  // then its value.
  char name_[5] = {};
  uint8_t name_size_ = 0;
  bool name_too_long_ = false;
  bool in_value_ = false;
  bool skip_space_ = false;  // The value's first byte, a space, is dropped.
  Field field_ = Field::kUnknown;
  bool after_cr_ = false;  // The last byte was a CR: a LF right after it ends nothing.
  bool at_start_ = true;   // Nothing read yet: a BOM may come.
  uint8_t bom_ = 0;        // BOM bytes matched so far.
  bool pending_ = false;
  bool dispatched_ = false;  // The last Feed dispatched: the next one starts a new event.
  // The event being built.
  std::string data_;  // Capacity fixed by SetDataCapacity.
  size_t capacity_ = 0;
  EventDataSink* sink_ = nullptr;
  size_t data_size_ = 0;
  bool has_data_ = false;  // A data line came (even an empty one).
  bool truncated_ = false;
  char head_[8] = {};  // The data's first bytes, kept whatever the capacity ([DONE]).
  char type_[kMaxTypeBytes] = {};
  size_t type_size_ = 0;
  StreamEvent event_;
};

}  // namespace uringload::proto
