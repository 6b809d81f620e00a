#include "proto/http2_output.h"

#include <algorithm>
#include <cstring>

namespace uringload::proto {
namespace {

constexpr size_t kBufferBytes = 4096;

}  // namespace

Http2Output::Http2Output() : buffer_(kBufferBytes) {}

std::string_view Http2Output::Next(nghttp2_session* session) {
  while (size_ < buffer_.size()) {
    if (chunk_size_ == 0) {
      ssize_t n = nghttp2_session_mem_send(session, &chunk_);
      if (n <= 0) break;  // Nothing more (or a fatal error, which the next receive reports).
      chunk_size_ = static_cast<size_t>(n);
    }
    if (size_ == 0 && chunk_size_ >= buffer_.size()) {
      sending_chunk_ = true;  // Valid until the next mem_send, which waits for Sent().
      return std::string_view(reinterpret_cast<const char*>(chunk_), chunk_size_);
    }
    size_t take = std::min(chunk_size_, buffer_.size() - size_);
    std::memcpy(buffer_.data() + size_, chunk_, take);
    size_ += take;
    chunk_ += take;
    chunk_size_ -= take;
  }
  return std::string_view(buffer_.data(), size_);
}

void Http2Output::Sent(uint32_t bytes) {
  if (sending_chunk_) {
    sending_chunk_ = false;
    chunk_ += bytes;
    chunk_size_ -= bytes;
    return;
  }
  size_ -= bytes;
  std::memmove(buffer_.data(), buffer_.data() + bytes, size_);
}

void Http2Output::Inject(std::string_view bytes) {
  size_t take = std::min(bytes.size(), buffer_.size() - size_);
  std::memmove(buffer_.data() + take, buffer_.data(), size_);
  std::memcpy(buffer_.data(), bytes.data(), take);
  size_ += take;
}

void Http2Output::Clear() {
  size_ = 0;
  chunk_ = nullptr;
  chunk_size_ = 0;
  sending_chunk_ = false;
}

}  // namespace uringload::proto
