// QuicSendBuffers: the buffers one worker's QUIC sends go out from. Packets are written into
// one scratch buffer, then copied into a free buffer of their size (one packet, or up to
// kQuicSendPackets) that the send holds until it completes. As many are made as sends were ever
// in flight at once, not one of 11.6 KB per connection, and most hold one packet: a
// connection's idle memory is mostly what ngtcp2 and nghttp3 keep (docs/http3.md).
// Not thread-safe: one per worker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "net/quic_connection.h"

namespace uringload::net {

// The packets of one send: held by the connection while the send is in flight.
struct QuicSendBuffer {
  std::unique_ptr<uint8_t[]> bytes;
  bool full = false;  // kQuicSendBytes of room, not one packet's.
  const char* data() const { return reinterpret_cast<const char*>(bytes.get()); }
};

class QuicSendBuffers {
 public:
  // Where the next packets are written: kQuicSendBytes.
  std::span<uint8_t> scratch();
  // Gives `buffer` back (the connection's last send, completed or dropped with its socket),
  // then holds the first `n` bytes of scratch() in a free buffer of their size.
  void Hold(size_t n, QuicSendBuffer& buffer);
  // `buffer`'s send completed: its room is free for the next. An empty one is ignored.
  void GiveBack(QuicSendBuffer& buffer);

  size_t free_buffers() const { return free_[0].size() + free_[1].size(); }

 private:
  std::unique_ptr<uint8_t[]> scratch_;
  std::vector<std::unique_ptr<uint8_t[]>> free_[2];  // By QuicSendBuffer::full.
};

}  // namespace uringload::net
