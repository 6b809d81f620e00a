#include "proto/http2_output.h"

#include <algorithm>
#include <cstring>

namespace uringload::proto {

void Http2Output::Take(nghttp2_session* session) {
  if (buffer_ == nullptr) buffer_ = memory_.TakeOutput();
  // A frame is taken whole: nghttp2's frame buffer is another session's at its next call.
  while (Http2Memory::kOutputBytes - size_ >= Http2Memory::kFrameBufferBytes) {
    const uint8_t* frame = nullptr;
    ssize_t n = nghttp2_session_mem_send(session, &frame);
    if (n <= 0) break;  // Nothing more (or a fatal error, which the next receive reports).
    std::memcpy(buffer_ + size_, frame, static_cast<size_t>(n));
    size_ += static_cast<size_t>(n);
  }
  if (size_ == 0) Clear();
}

std::string_view Http2Output::Next(nghttp2_session* session) {
  Take(session);
  return std::string_view(buffer_, size_);
}

void Http2Output::Sent(uint32_t bytes) {
  size_ -= bytes;
  if (size_ == 0) {
    Clear();
    return;
  }
  std::memmove(buffer_, buffer_ + bytes, size_);
}

void Http2Output::Inject(std::string_view bytes) {
  if (buffer_ == nullptr) buffer_ = memory_.TakeOutput();
  size_t take = std::min(bytes.size(), Http2Memory::kOutputBytes - size_);
  std::memmove(buffer_ + take, buffer_, size_);
  std::memcpy(buffer_, bytes.data(), take);
  size_ += take;
}

void Http2Output::Clear() {
  if (buffer_ != nullptr) memory_.GiveBackOutput(buffer_);
  buffer_ = nullptr;
  size_ = 0;
}

}  // namespace uringload::proto
