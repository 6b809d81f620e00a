// Http3ServerSession: one server connection's HTTP/3 (RFC 9114) over nghttp3's in-memory
// server connection, for `serve --http3`: the stream bytes QUIC received go in, each complete
// request comes out once through Events::OnRequest, and the caller answers it (now or after
// its delay) with a status and a body, resets it, or never answers it. The stream bytes to
// send come out as spans (Http3Streams). A stream's state lives in a pool entry from its
// first header until QUIC closes it: memory follows the streams open at once.
#pragma once

#include <nghttp3/nghttp3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "proto/http3_streams.h"

namespace uringload::proto {

class Http3ServerSession : public Http3Streams {
 public:
  struct Request {
    int64_t stream_id = 0;
    uint32_t handle = 0;    // Its pool entry: Respond and Reset name the stream with it too.
    std::string_view echo;  // The last segment of :path (as serve echoes it), valid in the call.
  };
  class Events {
   public:
    virtual ~Events() = default;
    virtual void OnRequest(const Request& request) = 0;
    // nghttp3 asks the QUIC layer to reset stream `id` or stop its sending, with `code`.
    virtual void OnStreamShutdown(int64_t id, uint64_t code) = 0;
  };

  Http3ServerSession() = default;
  ~Http3ServerSession() { Stop(); }

  // A new connection, once QUIC's handshake is done: its control and QPACK streams are the
  // server's unidirectional streams the QUIC layer opened; the client may open `max_streams`
  // request streams at once (QUIC's limit, told to nghttp3).
  absl::Status Start(Events* events, int64_t control_stream, int64_t qpack_encoder_stream,
                     int64_t qpack_decoder_stream, uint64_t max_streams);
  void Stop() { Free(); }

  // Answers stream `stream_id` with `status` and `body`, which must stay valid until the
  // stream closes; with `echo`, the request's echoed segment instead.
  // A stream the client reset meanwhile is skipped.
  // `partial`: the headers and half the body only; once the client acknowledged them the
  // stream is reset with H3_INTERNAL_ERROR (by CutPartialAnswers), as HTTP/2's partial fault.
  absl::Status Respond(int64_t stream_id, uint32_t handle, int status, std::string_view body,
                       bool echo, bool partial = false);
  // Answers with a response no client may take: a :status that is no number (RFC 9114 4.1.2,
  // malformed), which the client's HTTP/3 ends as a stream error (H3_MESSAGE_ERROR).
  absl::Status RespondMalformed(int64_t stream_id, uint32_t handle);
  // Resets stream `stream_id` with `code` instead of answering it.
  void Reset(int64_t stream_id, uint32_t handle, uint64_t code);
  // Resets the partial answers whose half the client has acknowledged since the last call. Not
  // from within QUIC's receive (its acknowledgements come there): the caller calls it after.
  void CutPartialAnswers();
  // GOAWAY: the requests received so far are answered, later streams are rejected
  // (H3_REQUEST_REJECTED: the client may send them again elsewhere).
  absl::Status GoAway();
  // Streams open (from the first header to QUIC's close).
  uint32_t open_streams() const { return open_streams_; }

 private:
  struct Stream {
    int64_t id = -1;     // -1: the pool entry is free.
    char echo[32] = {};  // As RequestParser::kMaxEcho.
    uint8_t echo_size = 0;
    char status[4] = {};
    std::string_view body = {};
    bool body_given = false;
    bool partial = false;  // Only body[0, sent) goes, then the stream is reset.
    size_t sent = 0;       // What the answer's DATA carries.
    uint64_t acked = 0;    // What the client acknowledged of it.
  };
  Stream* StreamOf(int64_t stream_id, void* data);
  // Submits `stream`'s response: its status text, and `body` (valid until the stream closes).
  absl::Status Answer(Stream& stream, std::string_view body, bool partial = false);

  static constexpr std::string_view kMalformedBody = "malformed";
  static const nghttp3_callbacks* Callbacks();

  Events* events_ = nullptr;
  std::vector<Stream> pool_;
  std::vector<uint32_t> free_;
  // Partial answers acknowledged, to reset: pool entry and stream (the entry may serve another
  // stream by then, if the client reset this one meanwhile).
  std::vector<std::pair<uint32_t, int64_t>> cut_due_;
  uint32_t open_streams_ = 0;
};

}  // namespace uringload::proto
