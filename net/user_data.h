// user_data of every SQE, client and server alike: which connection slot, which incarnation
// of it (completions of a closed incarnation are recognised and ignored), which operation.
// Only net/ packs and unpacks it (EventLoop); handlers see Completion instead.
#pragma once

#include <cstdint>

namespace uringload::net {

enum class Op : uint8_t {
  kSocket = 1,
  kConnect,
  kSend,
  kRecv,
  kCancel,
  kClose,
  kAccept,
  kSocketOption,
  // A multishot recvmsg on a UDP slot: its buffers come from the datagram buffer ring, so even
  // a late completion of a closed incarnation names the ring its buffer goes back to.
  // Handlers see it as kRecv.
  kRecvDatagram
};

inline constexpr uint32_t kGenerationMask = 0xffffff;

inline uint64_t PackUserData(uint32_t slot, uint32_t generation, Op op) {
  return (static_cast<uint64_t>(op) << 56) |
         (static_cast<uint64_t>(generation & kGenerationMask) << 32) | slot;
}
inline uint32_t UserDataSlot(uint64_t data) { return static_cast<uint32_t>(data); }
inline uint32_t UserDataGeneration(uint64_t data) { return (data >> 32) & kGenerationMask; }
inline Op UserDataOp(uint64_t data) { return static_cast<Op>(data >> 56); }
inline bool IsCurrent(uint64_t data, uint32_t generation) {
  return UserDataGeneration(data) == (generation & kGenerationMask);
}

}  // namespace uringload::net
