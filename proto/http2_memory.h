// Http2Memory: what one worker's HTTP/2 sessions share, on that worker's thread: nghttp2's
// frame buffer, the buffers of frames waiting to go out, and where a request's fields are laid
// out for nghttp2 (which copies them). A session keeps none of them while it is idle, so an
// open HTTP/2 connection costs nghttp2's session state and little else (docs/performance.md
// has the bytes).
//
// nghttp2 keeps a 16 KiB buffer per session in which it lays out each frame; the frame is
// needed only until nghttp2_session_mem_send hands it out, and Http2Output copies it away at
// once. So the sessions of a worker share one such buffer: nghttp2's memory callbacks give it
// out for the session's frame-buffer allocation, recognised by its size. Their other blocks
// come from the worker's SmallBlocks.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "proto/request_fields.h"
#include "proto/small_blocks.h"

namespace uringload::proto {

class Http2Memory {
 public:
  // nghttp2's frame buffer: NGHTTP2_FRAMEBUF_CHUNKLEN in its lib/nghttp2_session.h (not
  // exported): a frame header, a padding length byte and the largest payload (16,384).
  static constexpr size_t kFrameBufferBytes = 9 + 1 + 16384;
  // An output buffer holds two whole frames: Http2Output takes a frame only if all of it fits.
  static constexpr size_t kOutputBytes = 2 * kFrameBufferBytes;

  // One session's nghttp2 allocator (its nghttp2_mem): the worker's SmallBlocks, and for the
  // frame buffer the worker's shared one. Counts the session's allocations.
  class SessionAllocator {
   public:
    explicit SessionAllocator(Http2Memory& memory);
    SessionAllocator(const SessionAllocator&) = delete;
    SessionAllocator& operator=(const SessionAllocator&) = delete;

    nghttp2_mem* mem() { return &mem_; }
    // malloc, calloc and realloc calls since construction (nghttp2 allocates per stream).
    uint64_t allocations() const { return allocations_; }
    // Blocks nghttp2 holds now (the shared frame buffer not counted).
    int64_t live_allocations() const { return live_; }

   private:
    static void* Malloc(size_t size, void* self);
    static void Free(void* ptr, void* self);
    static void* Calloc(size_t count, size_t size, void* self);
    static void* Realloc(void* ptr, size_t size, void* self);

    Http2Memory& memory_;
    uint64_t allocations_ = 0;
    int64_t live_ = 0;
    bool holds_frame_buffer_ = false;  // nghttp2 of this session has the shared one.
    nghttp2_mem mem_;
  };

  Http2Memory() = default;
  Http2Memory(const Http2Memory&) = delete;
  Http2Memory& operator=(const Http2Memory&) = delete;

  // An output buffer of kOutputBytes, from those given back or a new one.
  char* TakeOutput();
  void GiveBackOutput(char* buffer);
  // A request's header fields and the rendered values they point at, while a session submits
  // it: grown to the largest request once per worker, not per connection.
  struct RequestFields {
    RequestFieldLayout layout;
    std::vector<nghttp2_nv> fields;
  };
  RequestFields& request_fields() { return request_fields_; }
  // Output buffers made so far: the most ever taken at once.
  size_t outputs_made() const { return outputs_.size(); }
  const SmallBlocks& blocks() const { return blocks_; }

 private:
  char* FrameBuffer();

  SmallBlocks blocks_;  // nghttp2's other blocks, kept for the next ones.

  std::unique_ptr<char[]> frame_buffer_;
  std::vector<std::unique_ptr<char[]>> outputs_;
  std::vector<char*> free_outputs_;
  RequestFields request_fields_;
};

}  // namespace uringload::proto
