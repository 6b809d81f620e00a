// Fuzzes the event stream parser against the WHATWG standard's steps read literally
// (proto/testing/event_stream_reference.h): any bytes as a stream, cut where the input's first
// byte says, give exactly the standard's events, each whole (with room for all its data; a
// type kept to its first 64 bytes); as NDJSON, every non-empty line is an event. No crash, no
// UB, no leak.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/event_stream_parser.h"
#include "proto/testing/event_stream_reference.h"

namespace {

using uringload::proto::EventFormat;
using uringload::proto::EventStreamParser;
using uringload::proto::testing::Event;

std::vector<Event> Parse(std::string_view stream, size_t stride, EventFormat format) {
  EventStreamParser parser(format);
  parser.SetDataCapacity(stream.size());
  parser.Reset();
  std::vector<Event> events;
  for (size_t from = 0; from < stream.size(); from += stride) {
    std::string_view piece = stream.substr(from, stride);
    while (!piece.empty()) {
      EventStreamParser::Step step = parser.Feed(piece);
      if (step.consumed == 0 && !step.event) abort();  // No progress.
      if (step.event) {
        if (parser.event().truncated || parser.event().data.size() != parser.event().data_size) {
          abort();
        }
        events.push_back({std::string(parser.event().type), std::string(parser.event().data)});
      }
      piece.remove_prefix(step.consumed);
    }
  }
  return events;
}

// Every non-empty line of `stream` (ended by CR, LF or CRLF; an unended one is cut), after a
// leading BOM.
std::vector<Event> NdjsonLines(std::string_view stream) {
  if (stream.starts_with("\xEF\xBB\xBF")) stream.remove_prefix(3);
  std::vector<Event> lines;
  size_t i = 0;
  while (true) {
    size_t end = stream.find_first_of("\r\n", i);
    if (end == std::string_view::npos) break;
    if (end > i) lines.push_back({"", std::string(stream.substr(i, end - i))});
    i = end + (stream[end] == '\r' && end + 1 < stream.size() && stream[end + 1] == '\n' ? 2 : 1);
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t stride = data[0] % 16 + 1;
  std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<Event> events = uringload::proto::testing::Reference(stream);
  for (Event& e : events) {  // A type is kept to its first kMaxTypeBytes.
    if (e.type.size() > EventStreamParser::kMaxTypeBytes) {
      e.type.resize(EventStreamParser::kMaxTypeBytes);
    }
  }
  if (Parse(stream, stride, EventFormat::kSse) != events) abort();
  if (Parse(stream, stride, EventFormat::kNdjson) != NdjsonLines(stream)) abort();
  return 0;
}
