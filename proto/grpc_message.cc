#include "proto/grpc_message.h"

#include <algorithm>

namespace uringload::proto {

void WriteGrpcPrefix(uint32_t size, char* out) {
  out[0] = 0;  // Not compressed: uringload announces no grpc-encoding.
  out[1] = static_cast<char>(size >> 24);
  out[2] = static_cast<char>(size >> 16);
  out[3] = static_cast<char>(size >> 8);
  out[4] = static_cast<char>(size);
}

bool GrpcMessageCounter::Feed(std::string_view data) {
  while (!malformed_ && !data.empty()) {
    if (left_ > 0) {  // Inside a message's body.
      size_t take = std::min<size_t>(left_, data.size());
      left_ -= static_cast<uint32_t>(take);
      data.remove_prefix(take);
      if (left_ == 0) ++messages_;
      continue;
    }
    prefix_[prefix_seen_++] = data.front();
    data.remove_prefix(1);
    if (prefix_seen_ < kGrpcPrefixBytes) continue;
    prefix_seen_ = 0;
    auto byte = [this](int i) { return static_cast<uint32_t>(static_cast<uint8_t>(prefix_[i])); };
    uint32_t size = byte(1) << 24 | byte(2) << 16 | byte(3) << 8 | byte(4);
    // Compressed (1) is as malformed as any other flag: this client asks for no encoding.
    if (prefix_[0] != 0 || size > max_message_bytes_) {
      malformed_ = true;
    } else if (size == 0) {
      ++messages_;  // An empty message (all fields at their defaults) is whole at once.
    } else {
      left_ = size;
    }
  }
  return !malformed_;
}

}  // namespace uringload::proto
