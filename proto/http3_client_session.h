// Http3ClientSession: one client connection's HTTP/3 (RFC 9114) over nghttp3's in-memory
// connection, above a QUIC connection it never sees: requests go in as streams whose ids the
// QUIC layer gave, the stream bytes QUIC received go in, and the stream bytes to send come
// out as spans nghttp3 keeps until QUIC says they were acknowledged. QPACK and the control
// streams are nghttp3's business. A request carries a tag (the caller's slot for it) and
// ends exactly once through Events::OnStreamEnd, when its response is complete or its stream
// was reset; nghttp3 may still need the request's bytes until QUIC closes the stream, so the
// session keeps each stream's state in a slot of its own until then.
#pragma once

#include <nghttp3/nghttp3.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "proto/body_matcher.h"
#include "proto/http3_streams.h"
#include "proto/request_fields.h"
#include "proto/request_template.h"
#include "proto/response_parser.h"
#include "proto/stream_end.h"

namespace uringload::proto {

class Http3ClientSession : public Http3Streams {
 public:
  class Events {
   public:
    virtual ~Events() = default;
    virtual void OnStreamEnd(const StreamEnd& end) = 0;
    // Request `tag`'s response came as far as `progress` (its head, its body's first byte;
    // each once, as the QUIC layer hands its bytes in).
    virtual void OnProgress(uint32_t /*tag*/, ResponseProgress /*progress*/) {}
    // Each piece of request `tag`'s response body, as it arrives (SetStreamBodies).
    virtual void OnBody(uint32_t /*tag*/, std::string_view /*piece*/) {}
    // nghttp3 asks the QUIC layer to reset stream `id` or stop its sending, with `code`.
    virtual void OnStreamShutdown(int64_t /*id*/, uint64_t /*code*/) {}
  };

  // `streams`: the most requests the caller will have open at once (tags are below it).
  explicit Http3ClientSession(uint32_t streams);
  ~Http3ClientSession();
  Http3ClientSession(const Http3ClientSession&) = delete;
  Http3ClientSession& operator=(const Http3ClientSession&) = delete;

  // A new connection, once QUIC's handshake is done: a fresh nghttp3 connection whose control
  // and QPACK streams are the client's unidirectional streams the QUIC layer opened.
  absl::Status Start(Events* events, int64_t control_stream, int64_t qpack_encoder_stream,
                     int64_t qpack_decoder_stream);
  // From the next Start() on, each response body is searched for `matcher`'s text.
  void SetBodyMatcher(const BodyMatcher* matcher) { matcher_ = matcher; }
  // A flow's user sees each response's fields and body (one request at a time: its own).
  void SetInspector(ResponseInspector* inspector) { inspector_ = inspector; }
  // Each body's pieces go to Events::OnBody as well.
  void SetStreamBodies(bool on) { stream_bodies_ = on; }
  // The connection ended: frees the nghttp3 connection (requests still open are not
  // reported).
  void Stop();

  // A request may go out: a slot is free and no GOAWAY came.
  bool can_open() const { return !free_slots_.empty() && !going_away_; }
  bool going_away() const { return going_away_; }
  // Sends `request` rendered for `context` on the bidirectional stream `stream_id` the QUIC
  // layer opened. `request` must outlive the stream.
  absl::Status Submit(const RequestTemplate& request, const TemplateContext& context, uint32_t tag,
                      int64_t stream_id);
  // Ends request `tag` from the client's side (it timed out): it is not reported; the caller
  // resets the QUIC stream, whose close frees the slot.
  void Cancel(uint32_t tag);

  uint32_t open_requests() const { return open_requests_; }

 private:
  struct Stream {
    const RequestTemplate* request = nullptr;
    std::string_view body = {};
    std::string rendered_body = {};
    int64_t id = -1;  // The QUIC stream; -1: the slot is free.
    uint32_t tag = 0;
    bool reported = false;  // OnStreamEnd was called (or the request was cancelled).
    bool body_given = false;
    bool malformed = false;      // nghttp3 shut it with H3_MESSAGE_ERROR.
    bool head_reported = false;  // Its final head came (reported).
    bool body_begun = false;     // Its body's first byte came (reported).
    int status = 0;
    uint32_t body_state = 0;
  };

  Stream* StreamOf(int64_t stream_id, void* stream_user_data);
  void End(Stream& stream, uint64_t error_code, bool complete);
  static const nghttp3_callbacks* Callbacks();

  Events* events_ = nullptr;
  bool stream_bodies_ = false;
  const BodyMatcher* matcher_ = nullptr;
  ResponseInspector* inspector_ = nullptr;
  std::vector<Stream> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t> slot_of_tag_;
  RequestFieldLayout layout_;
  std::vector<nghttp3_nv> nv_;  // Grown to the largest request once.
  uint32_t open_requests_ = 0;
  bool going_away_ = false;
};

}  // namespace uringload::proto
