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

std::optional<GrpcPrefix> ReadGrpcPrefix(std::string_view data) {
  if (data.size() < kGrpcPrefixBytes) return std::nullopt;
  auto byte = [data](int i) { return static_cast<uint32_t>(static_cast<uint8_t>(data[i])); };
  return GrpcPrefix{.flag = static_cast<uint8_t>(byte(0)),
                    .size = byte(1) << 24 | byte(2) << 16 | byte(3) << 8 | byte(4)};
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
    GrpcPrefix prefix = *ReadGrpcPrefix({prefix_, kGrpcPrefixBytes});
    // Compressed (1) is as malformed as any other flag: this client asks for no encoding.
    if (prefix.flag != 0 || prefix.size > max_message_bytes_) {
      malformed_ = true;
    } else if (prefix.size == 0) {
      ++messages_;  // An empty message (all fields at their defaults) is whole at once.
    } else {
      left_ = prefix.size;
    }
  }
  return !malformed_;
}

}  // namespace uringload::proto
