// Http2ServerSession: one accepted connection's HTTP/2 (the server side of RFC 9113) over
// nghttp2's in-memory session, for `uringload serve`: received bytes go in, each complete
// request comes out once through Events::OnRequest, and the caller answers it whenever it
// likes, in any order: a response, half of one and a reset, a reset, or nothing (a stall).
// Frames go out through its Http2Output. No socket, thread or timer of nghttp2's.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "proto/http2_memory.h"
#include "proto/http2_output.h"

namespace uringload::proto {

class Http2ServerSession {
 public:
  struct Settings {
    uint32_t max_streams = 128;  // SETTINGS_MAX_CONCURRENT_STREAMS (nginx's default).
    uint32_t window = 65535;     // SETTINGS_INITIAL_WINDOW_SIZE: what a client may upload ahead.
    // Keep each request's text (serve --log-requests): its header fields and body, copied as
    // they arrive (memory per open stream; off, nothing is copied).
    bool keep_text = false;
    // Keep each request's body, up to kMaxKeptBody bytes, for RespondGrpc's echo.
    bool keep_body = false;
  };
  struct Request {
    int32_t stream_id = 0;
    std::string_view echo;  // The last segment of :path (as serve echoes it), valid in the call.
    // With keep_text: "METHOD PATH HTTP/2", then "name: value" lines (pseudo-headers
    // :scheme and :authority among them), an empty line and the body, lines ending in CRLF as
    // in HTTP/1.1; valid in the call.
    std::string_view text = {};
  };
  class Events {
   public:
    virtual ~Events() = default;
    virtual void OnRequest(const Request& request) = 0;
  };
  static constexpr size_t kMaxCopiedBody = 64;  // Respond copies a body up to this size.
  // keep_body keeps this much of a request's body: gRPC's default largest message, 4 MiB.
  static constexpr size_t kMaxKeptBody = 4 << 20;

  // `memory`: the worker's, shared by its sessions (none: one of its own).
  explicit Http2ServerSession(Http2Memory* memory = nullptr);
  ~Http2ServerSession();
  Http2ServerSession(const Http2ServerSession&) = delete;
  Http2ServerSession& operator=(const Http2ServerSession&) = delete;

  // A new connection: a fresh session, its SETTINGS queued.
  absl::Status Start(Events* events, const Settings& settings);
  void Stop();
  bool started() const { return session_ != nullptr; }

  // Feeds received bytes; complete requests are reported during the call. An error is fatal.
  absl::Status Receive(std::string_view data);
  // The response to `stream_id`: `status` and `body`, which must stay valid until the stream
  // ends unless it is at most kMaxCopiedBody bytes (copied). `partial`: half of the body, then
  // RST_STREAM(INTERNAL_ERROR).
  void Respond(int32_t stream_id, int status, std::string_view body, bool partial = false);
  // The end of gRPC call `stream_id` (serve --grpc): with `grpc_status` 0 (OK), 200 with
  // content-type application/grpc, one empty message and the trailer grpc-status: 0; with any
  // other status a trailers-only response carrying it. `partial`: half of the message, then
  // RST_STREAM(INTERNAL_ERROR), as for Respond. `echo` (with keep_body): the request's
  // messages instead of the empty one, or RESOURCE_EXHAUSTED for more than kMaxKeptBody bytes.
  void RespondGrpc(int32_t stream_id, int grpc_status, bool partial = false, bool echo = false);
  // RST_STREAM with `error_code` instead of a response.
  void Reset(int32_t stream_id, uint32_t error_code);
  // GOAWAY (NO_ERROR) naming the last stream received: no stream above it will be processed.
  void GoAway();
  // A frame no client may accept (a WINDOW_UPDATE of the wrong length), ahead of whatever is
  // not yet out.
  void InjectMalformedFrame();

  std::string_view Output() { return output_.Next(session_); }
  void Sent(uint32_t bytes) { output_.Sent(bytes); }
  // Nothing left to read or to write (after a GOAWAY or a protocol error): close.
  bool finished() const;

 private:
  static constexpr size_t kMaxEcho = 32;  // As RequestParser::kMaxEcho.
  // A stream's state from its HEADERS to its close (a pool entry: streams come and go).
  struct Stream {
    char echo[kMaxEcho];
    uint8_t echo_size = 0;
    std::string_view body;
    char copy[kMaxCopiedBody];
    size_t sent = 0;
    size_t stop_at = 0;          // Partial: the DATA stops here and the stream is reset.
    bool grpc_trailers = false;  // A gRPC call: its DATA ends with the trailer grpc-status: 0.
    bool body_overflow = false;  // keep_body: the body was over kMaxKeptBody.
    // keep_text: the request line's parts, the other fields and the body (their capacity stays
    // with the pool entry).
    std::string method;
    std::string path;
    std::string fields;
    std::string received_body;
  };
  static int OnBeginHeaders(nghttp2_session* session, const nghttp2_frame* frame, void* user_data);
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t namelen, const uint8_t* value, size_t valuelen, uint8_t flags,
                      void* user_data);
  static int OnFrameReceived(nghttp2_session* session, const nghttp2_frame* frame, void* user_data);
  static int OnDataChunk(nghttp2_session*, uint8_t flags, int32_t stream_id, const uint8_t* data,
                         size_t len, void* user_data);
  static int OnStreamClose(nghttp2_session* session, int32_t stream_id, uint32_t error_code,
                           void* user_data);
  static ssize_t ReadBody(nghttp2_session* session, int32_t stream_id, uint8_t* buf, size_t length,
                          uint32_t* data_flags, nghttp2_data_source* source, void* user_data);
  Stream* StreamOf(int32_t stream_id);
  // The same for every session (nghttp2 copies them into each): made once.
  static const nghttp2_session_callbacks* Callbacks();

  std::unique_ptr<Http2Memory> own_memory_;  // Without a worker's.
  Http2Memory::SessionAllocator allocator_;
  nghttp2_session* session_ = nullptr;
  Events* events_ = nullptr;
  Http2Output output_;
  std::vector<Stream> streams_;
  std::vector<uint32_t> free_streams_;
  bool keep_text_ = false;
  bool keep_body_ = false;
  std::string text_;  // The request text handed to OnRequest (keep_text).
};

}  // namespace uringload::proto
