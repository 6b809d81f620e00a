#include "proto/http2_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace uringload::proto {

Http2Memory::SessionAllocator::SessionAllocator(Http2Memory& memory)
    : memory_(memory),
      mem_{.mem_user_data = this,
           .malloc = &Malloc,
           .free = &Free,
           .calloc = &Calloc,
           .realloc = &Realloc} {}

void* Http2Memory::SessionAllocator::Malloc(size_t size, void* self) {
  auto* a = static_cast<SessionAllocator*>(self);
  ++a->allocations_;
  ++a->live_;
  return a->memory_.blocks_.Take(size);
}

void Http2Memory::SessionAllocator::Free(void* ptr, void* self) {
  auto* a = static_cast<SessionAllocator*>(self);
  if (ptr != nullptr && a->holds_frame_buffer_ && ptr == a->memory_.frame_buffer_.get()) {
    a->holds_frame_buffer_ = false;
    return;
  }
  if (ptr != nullptr) --a->live_;
  a->memory_.blocks_.GiveBack(ptr);
}

void* Http2Memory::SessionAllocator::Calloc(size_t count, size_t size, void* self) {
  auto* a = static_cast<SessionAllocator*>(self);
  ++a->allocations_;
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* block = a->memory_.blocks_.Take(count * size);
  if (block == nullptr) return nullptr;
  ++a->live_;
  return std::memset(block, 0, count * size);
}

// nghttp2 allocates its frame buffer as realloc(nullptr, kFrameBufferBytes) when the session
// is made (and more of that size only for a header block longer than one frame, which are its
// own: the session has the shared one already).
void* Http2Memory::SessionAllocator::Realloc(void* ptr, size_t size, void* self) {
  auto* a = static_cast<SessionAllocator*>(self);
  ++a->allocations_;
  if (ptr == nullptr && size == kFrameBufferBytes && !a->holds_frame_buffer_) {
    a->holds_frame_buffer_ = true;
    return a->memory_.FrameBuffer();
  }
  if (ptr != nullptr && a->holds_frame_buffer_ && ptr == a->memory_.frame_buffer_.get()) {
    void* own = a->memory_.blocks_.Take(size);  // Growing it (never done by uringload's calls).
    if (own == nullptr) return nullptr;
    std::memcpy(own, ptr, std::min(size, kFrameBufferBytes));
    a->holds_frame_buffer_ = false;
    ++a->live_;
    return own;
  }
  void* block = a->memory_.blocks_.Resize(ptr, size);
  if (ptr == nullptr && block != nullptr) ++a->live_;
  return block;
}

char* Http2Memory::FrameBuffer() {
  if (frame_buffer_ == nullptr) frame_buffer_.reset(new char[kFrameBufferBytes]);
  return frame_buffer_.get();
}

char* Http2Memory::TakeOutput() {
  if (free_outputs_.empty()) {
    outputs_.emplace_back(new char[kOutputBytes]);  // Uninitialised: untouched pages cost nothing.
    free_outputs_.reserve(outputs_.size());
    return outputs_.back().get();
  }
  char* buffer = free_outputs_.back();
  free_outputs_.pop_back();
  return buffer;
}

void Http2Memory::GiveBackOutput(char* buffer) { free_outputs_.push_back(buffer); }

}  // namespace uringload::proto
