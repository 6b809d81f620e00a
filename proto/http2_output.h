// Http2Output: what an nghttp2 session has ready to send, one send at a time. Small frames
// (HEADERS, SETTINGS, WINDOW_UPDATE) gather in a 4 KiB buffer so that one send carries many; a
// frame that size or larger (DATA) is handed out from nghttp2's own buffer, uncopied. Used by
// both ends: Http2ClientSession and Http2ServerSession.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace uringload::proto {

// A header field for nghttp2's submit calls, which copy it (no flags needed).
inline nghttp2_nv Http2Field(std::string_view name, std::string_view value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

class Http2Output {
 public:
  Http2Output();
  // The bytes to send next (empty: nothing ready). They stay valid until Sent(); call again
  // only after it. Serializing may run the session's callbacks (a frame that cannot be sent).
  std::string_view Next(nghttp2_session* session);
  // `bytes` (at most all) of the last Next() were sent.
  void Sent(uint32_t bytes);
  // Bytes to send before anything nghttp2 has (serve's malformed-frame fault).
  void Inject(std::string_view bytes);
  // A new connection: nothing waiting.
  void Clear();

 private:
  std::vector<char> buffer_;
  size_t size_ = 0;
  const uint8_t* chunk_ = nullptr;  // nghttp2's output not yet copied (valid until mem_send).
  size_t chunk_size_ = 0;
  bool sending_chunk_ = false;  // Next() handed out chunk_ itself.
};

}  // namespace uringload::proto
