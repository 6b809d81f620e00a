// The WHATWG standard's steps for interpreting an event stream (HTML §9.2.6), read literally
// over a whole stream, without any of the parser's economy: the oracle that
// proto/event_stream_parser.h is tested and fuzzed against.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace uringload::proto::testing {

struct Event {
  std::string type;
  std::string data;
  bool operator==(const Event&) const = default;
};

inline std::ostream& operator<<(std::ostream& out, const Event& e) {
  return out << "{" << e.type << ": '" << e.data << "'}";
}

// The WHATWG standard's steps (HTML §9.2.6), read literally over the whole stream: the oracle.
inline std::vector<Event> Reference(std::string_view s) {
  if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
  std::vector<Event> events;
  std::string data, type;
  size_t i = 0;
  while (true) {
    size_t end = s.find_first_of("\r\n", i);
    if (end == std::string_view::npos) break;  // An unterminated line is never processed.
    std::string_view line = s.substr(i, end - i);
    i = end + (s[end] == '\r' && end + 1 < s.size() && s[end + 1] == '\n' ? 2 : 1);
    if (line.empty()) {
      if (!data.empty()) {
        data.pop_back();  // The last LF.
        events.push_back({type, data});
      }
      data.clear();
      type.clear();
      continue;
    }
    if (line[0] == ':') continue;
    std::string_view field = line, value;
    if (size_t colon = line.find(':'); colon != std::string_view::npos) {
      field = line.substr(0, colon);
      value = line.substr(colon + 1);
      if (value.starts_with(' ')) value.remove_prefix(1);
    }
    if (field == "event") type = std::string(value);
    if (field == "data") data += std::string(value) + "\n";
  }
  return events;
}

}  // namespace uringload::proto::testing
