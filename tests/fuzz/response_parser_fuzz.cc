// Fuzzes the client's response path: any bytes, split at any point, pipelined, then EOF.
// Invariants: never consume more than given; an error stays an error; no crash, no UB.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "proto/response_parser.h"

using uringload::proto::ResponseParser;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  bool head = data[0] & 1;
  size_t split = data[1] % (size - 1);
  std::string_view input(reinterpret_cast<const char*>(data + 2), size - 2);
  ResponseParser parser;
  parser.Start(head);
  for (std::string_view piece : {input.substr(0, split), input.substr(split)}) {
    while (!piece.empty()) {
      ResponseParser::Result r = parser.Feed(piece);
      if (r.consumed > piece.size()) abort();
      if (r.state == ResponseParser::State::kError) {
        if (parser.Feed("x").state != ResponseParser::State::kError) abort();
        return 0;
      }
      if (r.state == ResponseParser::State::kNeedMore) break;
      if (parser.status_code() < 100 || parser.status_code() > 999) abort();
      piece.remove_prefix(r.consumed);
      parser.Start(head);  // The rest is the next (pipelined) response.
    }
  }
  parser.Finish();
  return 0;
}
