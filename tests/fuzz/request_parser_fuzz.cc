// Fuzzes the server's request path: any bytes, split at any point, pipelined requests.
// Invariants: never consume more than given; the echo segment stays within its bound.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "proto/request_parser.h"

using uringload::proto::RequestParser;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t split = data[0] % size;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  RequestParser parser;
  for (std::string_view piece : {input.substr(0, split), input.substr(split)}) {
    while (!piece.empty()) {
      RequestParser::Result r = parser.Feed(piece);
      if (r.consumed > piece.size()) abort();
      if (r.state == RequestParser::State::kError) return 0;
      if (r.state == RequestParser::State::kNeedMore) break;
      if (parser.last_segment().size() > RequestParser::kMaxEcho) abort();
      piece.remove_prefix(r.consumed);
    }
  }
  return 0;
}
