// Http2Output: what an nghttp2 session has ready to send, one send at a time. Frames are
// copied out of nghttp2 as soon as it lays them out (its frame buffer is shared by the
// worker's sessions: Http2Memory) into an output buffer the session holds only while bytes
// wait to go out, so that one send carries many small frames (HEADERS, SETTINGS,
// WINDOW_UPDATE) or up to two large ones (DATA). Used by both ends: Http2ClientSession and
// Http2ServerSession.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <string_view>

#include "proto/http2_memory.h"

namespace uringload::proto {

// A header field for nghttp2's submit calls, which copy it (and lower the name's case) unless
// `flags` says that the name (lower case already) or the value outlives the frame: then
// nghttp2 points at it instead.
inline nghttp2_nv Http2Field(std::string_view name, std::string_view value,
                             uint8_t flags = NGHTTP2_NV_FLAG_NONE) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          flags};
}

class Http2Output {
 public:
  explicit Http2Output(Http2Memory& memory) : memory_(memory) {}
  ~Http2Output() { Clear(); }
  Http2Output(const Http2Output&) = delete;
  Http2Output& operator=(const Http2Output&) = delete;

  // Copies out the frames nghttp2 has ready, as many as fit. A new session must have this done
  // before another session of the worker runs: nghttp2 lays out a client's preface when the
  // session is made. Serializing may run the session's callbacks (a frame that cannot be sent).
  void Take(nghttp2_session* session);
  // Take(), then the bytes to send next (empty: nothing ready). They stay valid until Sent();
  // call again only after it.
  std::string_view Next(nghttp2_session* session);
  // `bytes` (at most all) of the last Next() were sent.
  void Sent(uint32_t bytes);
  // Bytes to send before anything nghttp2 has (serve's malformed-frame fault).
  void Inject(std::string_view bytes);
  // A new connection: nothing waiting, the buffer given back.
  void Clear();

 private:
  Http2Memory& memory_;
  char* buffer_ = nullptr;  // Http2Memory::kOutputBytes, held while size_ > 0.
  size_t size_ = 0;
};

}  // namespace uringload::proto
