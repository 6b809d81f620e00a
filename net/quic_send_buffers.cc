#include "net/quic_send_buffers.h"

#include <cstring>

#include "net/base/check.h"

namespace uringload::net {

std::span<uint8_t> QuicSendBuffers::scratch() {
  if (scratch_ == nullptr) scratch_ = std::make_unique_for_overwrite<uint8_t[]>(kQuicSendBytes);
  return std::span(scratch_.get(), kQuicSendBytes);
}

void QuicSendBuffers::Hold(size_t n, QuicSendBuffer& buffer) {
  URINGLOAD_CHECK(n > 0 && n <= kQuicSendBytes && scratch_ != nullptr, "a QUIC send of %zu", n);
  GiveBack(buffer);
  buffer.full = n > kQuicMaxPacket;
  if (std::vector<std::unique_ptr<uint8_t[]>>& free = free_[buffer.full]; free.empty()) {
    buffer.bytes =
        std::make_unique_for_overwrite<uint8_t[]>(buffer.full ? kQuicSendBytes : kQuicMaxPacket);
  } else {
    buffer.bytes = std::move(free.back());
    free.pop_back();
  }
  std::memcpy(buffer.bytes.get(), scratch_.get(), n);
}

void QuicSendBuffers::GiveBack(QuicSendBuffer& buffer) {
  if (buffer.bytes != nullptr) free_[buffer.full].push_back(std::move(buffer.bytes));
}

}  // namespace uringload::net
