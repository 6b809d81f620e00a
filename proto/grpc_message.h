// gRPC's Length-Prefixed-Message framing (grpc/doc/PROTOCOL-HTTP2.md): each message on a
// stream is a flag byte (1: compressed), a 4-byte big-endian length, then the message. The
// writer prefixes a request once; the counter follows a response's DATA in pieces of any
// size, counting whole messages without keeping them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace uringload::proto {

inline constexpr size_t kGrpcPrefixBytes = 5;

// The prefix of an uncompressed message of `size` bytes, into out[0, 5).
void WriteGrpcPrefix(uint32_t size, char* out);

// A message's prefix read back: its flag (0: not compressed, 1: compressed) and its length.
struct GrpcPrefix {
  uint8_t flag = 0;
  uint32_t size = 0;
};
// The prefix at the start of `data`; none when `data` holds fewer than its 5 bytes.
std::optional<GrpcPrefix> ReadGrpcPrefix(std::string_view data);

// Counts the messages of one stream's DATA. Malformed: a flag other than 0 or 1, a compressed
// message when the call asked for none, or a length above `max_message_bytes` (gRPC's own
// default limit is 4 MiB).
class GrpcMessageCounter {
 public:
  GrpcMessageCounter() = default;
  explicit GrpcMessageCounter(uint32_t max_message_bytes) : max_message_bytes_(max_message_bytes) {}

  // Reads the next piece of the stream's DATA; false once the framing is malformed (and from
  // then on).
  bool Feed(std::string_view data);

  // Messages read whole so far.
  uint64_t messages() const { return messages_; }
  // No message is cut off here: the stream may end (a trailer after half a message is
  // malformed).
  bool AtBoundary() const { return !malformed_ && prefix_seen_ == 0 && left_ == 0; }
  bool malformed() const { return malformed_; }

  void Reset() { *this = GrpcMessageCounter(max_message_bytes_); }

 private:
  uint32_t max_message_bytes_ = 4 << 20;
  uint64_t messages_ = 0;
  uint32_t left_ = 0;        // Bytes of the current message still to come.
  uint8_t prefix_seen_ = 0;  // Bytes of the current prefix read (0 to 4; 5 starts the body).
  char prefix_[kGrpcPrefixBytes] = {};
  bool malformed_ = false;
};

}  // namespace uringload::proto
