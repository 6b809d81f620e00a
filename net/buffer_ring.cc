#include "net/buffer_ring.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace uringload::net {

namespace {

// IOU_PBUF_RING_INC, set in io_uring_buf_reg's flags (`pad` in liburing 2.3's headers).
constexpr uint16_t kIncrementalRing = 2;
constexpr uint32_t kIncrementalBufferSize = 32 * 1024;

}  // namespace

ReceiveBufferLayout ClassicReceiveBuffers(uint32_t connections) {
  return {.count = std::bit_ceil(std::clamp<uint32_t>((connections + 3) / 4, 64, 32768)),
          .size = 1024,
          .incremental = false};
}

ReceiveBufferLayout IncrementalReceiveBuffers(uint32_t connections) {
  ReceiveBufferLayout classic = ClassicReceiveBuffers(connections);
  uint64_t bytes = std::max<uint64_t>(uint64_t{classic.count} * classic.size, 1024 * 1024);
  return {.count = static_cast<uint32_t>(bytes / kIncrementalBufferSize),
          .size = kIncrementalBufferSize,
          .incremental = true};
}

absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> ProvidedBufferRing::Create(
    io_uring* ring, uint16_t group_id, const ReceiveBufferLayout& layout) {
  uint32_t entries = layout.count;
  if (entries == 0 || entries > 32768 || (entries & (entries - 1)) != 0 || layout.size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "buffer ring entries must be a power of two <= 32768, got ", entries, " of ", layout.size));
  }
  std::unique_ptr<ProvidedBufferRing> self(new ProvidedBufferRing());
  self->owner_ = ring;
  self->group_id_ = group_id;
  self->layout_ = layout;
  if (layout.incremental) self->offsets_ = std::make_unique<uint32_t[]>(entries);
  self->mask_ = io_uring_buf_ring_mask(entries);
  // The kernel needs the ring itself page-aligned; mmap gives that.
  self->ring_bytes_ = static_cast<size_t>(entries) * sizeof(io_uring_buf);
  void* ring_mem =
      mmap(nullptr, self->ring_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ring_mem == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrCat("mmap buffer ring: ", strerror(errno)));
  }
  self->ring_ = static_cast<io_uring_buf_ring*>(ring_mem);
  self->buffers_bytes_ = static_cast<size_t>(entries) * layout.size;
  void* buffers = mmap(nullptr, self->buffers_bytes_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buffers == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrCat("mmap receive buffers: ", strerror(errno)));
  }
  self->buffers_ = static_cast<char*>(buffers);

  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uint64_t>(self->ring_);
  reg.ring_entries = entries;
  reg.bgid = group_id;
  reg.pad = layout.incremental ? kIncrementalRing : 0;
  int ret = io_uring_register_buf_ring(ring, &reg, 0);
  if (ret < 0) {
    return absl::UnavailableError(absl::StrCat("register buffer ring: ", strerror(-ret)));
  }
  self->registered_ = true;
  io_uring_buf_ring_init(self->ring_);
  for (uint32_t id = 0; id < entries; ++id) self->Return(static_cast<uint16_t>(id));
  self->Publish();
  return self;
}

ProvidedBufferRing::~ProvidedBufferRing() {
  if (registered_) io_uring_unregister_buf_ring(owner_, group_id_);
  if (buffers_ != nullptr) munmap(buffers_, buffers_bytes_);
  if (ring_ != nullptr) munmap(ring_, ring_bytes_);
}

}  // namespace uringload::net
