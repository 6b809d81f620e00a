// Http2ClientSession: one client connection's HTTP/2 (RFC 9113) over nghttp2's in-memory
// session: requests go in as streams, the bytes the transport received go in, the frames to
// send come out through its Http2Output. nghttp2 never touches a socket, a thread or a
// timer; HPACK, flow control and SETTINGS are its business. A stream carries a tag (the
// caller's slot for the request) and ends exactly once through Events::OnStreamEnd.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "proto/body_matcher.h"
#include "proto/grpc_message.h"
#include "proto/http2_memory.h"
#include "proto/http2_output.h"
#include "proto/request_template.h"
#include "proto/response_parser.h"
#include "proto/stream_end.h"

namespace uringload::proto {

// The client's receive window by default: large, since every byte received is consumed at
// once (nothing is buffered), so the window only throttles the server.
inline constexpr int32_t kHttp2DefaultWindow = 1 << 24;
// HPACK's own size of the table in which the client keeps the header fields a server asks it
// to index (RFC 7541 4.2); a smaller one saves memory per connection (docs/http2.md).
inline constexpr uint32_t kHttp2DefaultHeaderTable = 4096;

// What a client session announces in its SETTINGS.
struct Http2ClientSettings {
  int32_t window = kHttp2DefaultWindow;  // Receive window per stream and for the connection.
  uint32_t header_table = kHttp2DefaultHeaderTable;  // SETTINGS_HEADER_TABLE_SIZE.
};

class Http2ClientSession {
 public:
  class Events {
   public:
    virtual ~Events() = default;
    virtual void OnStreamEnd(const StreamEnd& end) = 0;
    // Stream `tag`'s response came as far as `progress` (each once, during Receive()): its
    // head, its body's first byte, its first whole gRPC message (SetGrpc).
    virtual void OnProgress(uint32_t /*tag*/, ResponseProgress /*progress*/) {}
    // Each piece of stream `tag`'s response body, as it arrives (SetStreamBodies).
    virtual void OnBody(uint32_t /*tag*/, std::string_view /*piece*/) {}
  };

  // `streams`: the most streams the caller will have open (tags are below it); `memory`: the
  // worker's, shared by its sessions (none: one of its own).
  explicit Http2ClientSession(uint32_t streams, Http2ClientSettings settings = {},
                              Http2Memory* memory = nullptr);
  ~Http2ClientSession();
  Http2ClientSession(const Http2ClientSession&) = delete;
  Http2ClientSession& operator=(const Http2ClientSession&) = delete;

  // A new connection: a fresh nghttp2 session, the preface and SETTINGS queued to send.
  absl::Status Start(Events* events);
  // From the next Start() on, each response body is searched for `matcher`'s text as its DATA
  // frames arrive (none: bodies are not looked at). The matcher must outlive the session.
  void SetBodyMatcher(const BodyMatcher* matcher) { matcher_ = matcher; }
  // From the next Start() on, `inspector` sees each response's header fields (:status as its
  // beginning) and its DATA instead of the matcher: a flow's user, one stream at a time.
  void SetInspector(ResponseInspector* inspector) { inspector_ = inspector; }
  // From the next Start() on, streams may be gRPC calls (their request templates say which):
  // a call's DATA is read as gRPC messages (counted, and shown to the inspector, never kept)
  // and its grpc-status kept (StreamEnd).
  void SetGrpc(bool grpc) { grpc_ = grpc; }
  // From the next Start() on, each body's DATA goes to Events::OnBody as well.
  void SetStreamBodies(bool on) { stream_bodies_ = on; }
  // The connection ended: frees the nghttp2 session (streams still open are not reported).
  void Stop();
  bool started() const { return session_ != nullptr; }

  // Opens a stream for `request` rendered for `context` (its body flows as flow control
  // allows); with a context's writer, its Cookie line goes as the cookie field. `request` must
  // outlive the stream: nghttp2 points at its names and fixed values.
  absl::Status Submit(const RequestTemplate& request, const TemplateContext& context, uint32_t tag);
  // Feeds received bytes; ended streams are reported during the call. An error is nghttp2's
  // fatal one (out of memory); a protocol error found in the bytes shows in failed().
  absl::Status Receive(std::string_view data);
  // The server broke the protocol (a frame, HPACK or flow-control error): the session ends
  // the connection with a GOAWAY of its own. The reason is nghttp2's.
  bool failed() const { return !failure_.empty(); }
  std::string_view failure() const { return failure_; }
  bool failed_in_hpack() const { return failed_in_hpack_; }
  // The bytes to send next: frames ready to go (small ones gathered into one buffer). They
  // stay valid until Sent(); call again only after it.
  std::string_view Output();
  // `bytes` (at most all) of the last Output() were sent.
  void Sent(uint32_t bytes);

  // Streams the server allows at once (its SETTINGS_MAX_CONCURRENT_STREAMS; 100 until its
  // SETTINGS arrive, as nghttp2 assumes).
  uint32_t peer_max_streams() const;
  // A new stream may open: no GOAWAY came, and stream ids are left (2^30 per connection).
  bool can_open() const;
  // Streams opened on the session so far.
  uint32_t streams_opened() const;
  // Streams open on the session.
  uint32_t open_streams() const { return open_streams_; }
  // nghttp2's malloc, calloc and realloc calls for this session since construction, counted
  // through its memory callbacks (it allocates per stream: docs/performance.md).
  uint64_t nghttp2_allocations() const { return allocator_.allocations(); }
  // Blocks nghttp2 holds for this session now.
  int64_t nghttp2_live_allocations() const { return allocator_.live_allocations(); }
  // Ends stream `tag` from the client's side (it timed out): an RST_STREAM CANCEL goes to the
  // server, and the stream is not reported; the tag is free at once.
  void Cancel(uint32_t tag);
  // Whether the server may have processed stream `tag`, which has not ended: its HEADERS went
  // out, and no GOAWAY said it was above the last stream processed. When the connection ends,
  // a stream it may not have processed can be sent again.
  bool MayHaveProcessed(uint32_t tag) const;

 private:
  struct Stream {
    const RequestTemplate* request = nullptr;
    std::string_view body = {};      // What its DATA frames carry.
    std::string rendered_body = {};  // A templated body's rendering (its capacity is kept).
    int32_t id = 0;                  // 0: not open (never submitted, or ended).
    bool sent = false;               // Its HEADERS went out.
    size_t body_sent = 0;
    int status = 0;
    bool complete = false;
    bool malformed = false;   // nghttp2 found its response malformed and reset it.
    bool body_begun = false;  // A DATA frame with a payload began (reported).
    uint32_t body_state = 0;  // BodyMatcher's, over the DATA received so far.
    bool grpc = false;
    GrpcMessageCounter grpc_messages = {};
    int grpc_status = -1;
  };

  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t namelen, const uint8_t* value, size_t valuelen, uint8_t flags,
                      void* user_data);
  static int OnFrameReceived(nghttp2_session*, const nghttp2_frame* frame, void* user_data);
  static int OnBeginFrame(nghttp2_session*, const nghttp2_frame_hd* hd, void* user_data);
  static int OnDataChunk(nghttp2_session*, uint8_t flags, int32_t stream_id, const uint8_t* data,
                         size_t length, void* user_data);
  static int OnStreamClose(nghttp2_session* session, int32_t stream_id, uint32_t error_code,
                           void* user_data);
  static int OnFrameSent(nghttp2_session*, const nghttp2_frame* frame, void* user_data);
  static int OnInvalidFrame(nghttp2_session*, const nghttp2_frame* frame, int lib_error_code,
                            void* user_data);
  static int OnError(nghttp2_session*, int lib_error_code, const char* message, size_t size,
                     void* user_data);
  static int OnFrameNotSent(nghttp2_session*, const nghttp2_frame* frame, int error,
                            void* user_data);
  void End(uint32_t tag, uint32_t error_code);
  static ssize_t ReadBody(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length,
                          uint32_t* data_flags, nghttp2_data_source* source, void* user_data);
  Stream* StreamOf(int32_t stream_id);
  uint32_t TagOf(const Stream& stream) const {
    return static_cast<uint32_t>(&stream - streams_.data());
  }
  // The same for every session (nghttp2 copies them into each): made once, with a callback
  // for DATA only for sessions that check bodies.
  static const nghttp2_session_callbacks* Callbacks(bool with_body);
  static const nghttp2_option* Options();

  std::unique_ptr<Http2Memory> own_memory_;  // Without a worker's.
  Http2Memory& memory_;                      // The worker's, or own_memory_.
  Http2Memory::SessionAllocator allocator_;
  nghttp2_session* session_ = nullptr;
  Events* events_ = nullptr;
  const BodyMatcher* matcher_ = nullptr;
  ResponseInspector* inspector_ = nullptr;
  bool grpc_ = false;
  bool stream_bodies_ = false;
  Http2ClientSettings settings_;
  std::vector<Stream> streams_;  // By tag.
  Http2Output output_;
  uint32_t open_streams_ = 0;
  bool going_away_ = false;
  int32_t goaway_last_stream_ = 0;  // Of the latest GOAWAY received.
  std::string failure_;             // Why the session ended the connection (its GOAWAY went out).
  std::string last_error_;          // nghttp2's last error message.
  bool failed_in_hpack_ = false;
};

}  // namespace uringload::proto
