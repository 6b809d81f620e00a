#include "net/quic_send_buffers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string_view>

namespace uringload::net {
namespace {

void WriteScratch(QuicSendBuffers& buffers, size_t n, char fill) {
  std::memset(buffers.scratch().data(), fill, n);
}

TEST(QuicSendBuffersTest, ASendHoldsACopyOfItsPacketsInRoomOfTheirSize) {
  QuicSendBuffers buffers;
  QuicSendBuffer one, many;
  WriteScratch(buffers, kQuicMaxPacket, 'a');
  buffers.Hold(kQuicMaxPacket, one);
  WriteScratch(buffers, 3 * kQuicMaxPacket, 'b');
  buffers.Hold(3 * kQuicMaxPacket, many);
  EXPECT_FALSE(one.full);
  EXPECT_TRUE(many.full);
  // The second write into the scratch buffer left the first send's copy alone.
  EXPECT_EQ(std::string_view(one.data(), kQuicMaxPacket), std::string(kQuicMaxPacket, 'a'));
  EXPECT_EQ(std::string_view(many.data(), 3 * kQuicMaxPacket),
            std::string(3 * kQuicMaxPacket, 'b'));
}

TEST(QuicSendBuffersTest, ABufferGivenBackServesTheNextSendOfItsSizeOnly) {
  QuicSendBuffers buffers;
  QuicSendBuffer a, b, c;
  WriteScratch(buffers, 100, 'x');
  buffers.Hold(100, a);
  const char* first = a.data();
  buffers.GiveBack(a);
  EXPECT_EQ(a.bytes, nullptr);
  EXPECT_EQ(buffers.free_buffers(), 1u);
  buffers.Hold(2 * kQuicMaxPacket, b);  // Another size: a new buffer.
  EXPECT_NE(b.data(), first);
  buffers.Hold(200, c);  // The one given back.
  EXPECT_EQ(c.data(), first);
  EXPECT_EQ(buffers.free_buffers(), 0u);
  buffers.GiveBack(a);  // Empty: nothing.
  EXPECT_EQ(buffers.free_buffers(), 0u);
}

TEST(QuicSendBuffersTest, AConnectionsNextSendGivesBackItsLastFirst) {
  QuicSendBuffers buffers;
  QuicSendBuffer held;
  WriteScratch(buffers, 10, 'y');
  buffers.Hold(10, held);
  const char* first = held.data();
  // Its last send's completion was dropped with its socket: the next one reuses the room.
  buffers.Hold(10, held);
  EXPECT_EQ(held.data(), first);
  EXPECT_EQ(buffers.free_buffers(), 0u);
}

TEST(QuicSendBuffersDeathTest, MoreThanOneSendsRoomIsABug) {
  QuicSendBuffers buffers;
  QuicSendBuffer held;
  buffers.scratch();
  EXPECT_DEATH(buffers.Hold(kQuicSendBytes + 1, held), "a QUIC send of");
}

}  // namespace
}  // namespace uringload::net
