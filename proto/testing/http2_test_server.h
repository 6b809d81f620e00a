// Http2TestServer: an HTTP/2 server in memory (nghttp2's server session) for tests of the
// client side without sockets: bytes the client would send go in, bytes to answer come out.
// Each request is answered by `answer` (status and body), reset with an error code, left
// unanswered (a stall), or refused by a GOAWAY once `goaway_after` requests came.
#pragma once

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace uringload::proto::testing {

class Http2TestServer {
 public:
  struct Answer {
    int status = 200;
    std::string body = "ok";
    uint32_t reset = 0;  // Non-zero: RST_STREAM with this code instead of a response.
    bool stall = false;  // No answer at all.
  };
  struct Request {
    int32_t stream_id = 0;
    std::string method;
    std::string path;
    std::string authority;
    size_t body_bytes = 0;
    std::string body;              // What came, if the server keeps bodies.
    std::string last_field_value;  // Of the last header field.
  };

  // `max_streams`: the SETTINGS_MAX_CONCURRENT_STREAMS it announces (0: none announced).
  explicit Http2TestServer(uint32_t max_streams = 0) {
    nghttp2_session_callbacks* callbacks;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &OnHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &OnFrame);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &OnData);
    nghttp2_session_server_new(&session_, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    std::vector<nghttp2_settings_entry> settings;
    if (max_streams > 0) settings.push_back({NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams});
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
  }
  ~Http2TestServer() { nghttp2_session_del(session_); }
  Http2TestServer(const Http2TestServer&) = delete;
  Http2TestServer& operator=(const Http2TestServer&) = delete;

  std::function<Answer(const Request&)> answer = [](const Request&) { return Answer{}; };
  uint32_t goaway_after = 0;  // Non-zero: GOAWAY (NO_ERROR) naming the stream of request N.
  bool keep_bodies = false;   // Requests keep their bodies' bytes.

  // Takes the client's bytes; false on a protocol error.
  bool Receive(std::string_view bytes) {
    return nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(bytes.data()),
                                    bytes.size()) >= 0;
  }
  // Everything the server has to send now.
  std::string Output() {
    std::string out;
    const uint8_t* data;
    for (ssize_t n; (n = nghttp2_session_mem_send(session_, &data)) > 0;) {
      out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
    }
    return out;
  }
  // A SETTINGS value the client announced (or the protocol's default).
  uint32_t client_setting(nghttp2_settings_id id) const {
    return nghttp2_session_get_remote_settings(session_, id);
  }
  // Whether the client's SETTINGS named `id` at all (a default value may be announced too).
  bool client_announced(nghttp2_settings_id id) const {
    return std::find(announced_.begin(), announced_.end(), id) != announced_.end();
  }
  // The requests it processed (answered, reset or stalled), not those above its GOAWAY.
  const std::vector<Request>& requests() const { return requests_; }
  // The error code of each RST_STREAM the client sent.
  const std::vector<uint32_t>& resets_received() const { return resets_received_; }

 private:
  struct Body {
    std::string bytes;
    size_t sent = 0;
  };

  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                      size_t namelen, const uint8_t* value, size_t valuelen, uint8_t, void* self) {
    auto* server = static_cast<Http2TestServer*>(self);
    std::string_view n(reinterpret_cast<const char*>(name), namelen);
    std::string v(reinterpret_cast<const char*>(value), valuelen);
    Request& r = server->open_[frame->hd.stream_id];
    r.stream_id = frame->hd.stream_id;
    if (n == ":method") r.method = v;
    if (n == ":path") r.path = v;
    if (n == ":authority") r.authority = v;
    r.last_field_value = v;
    return 0;
  }
  static int OnData(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len,
                    void* self) {
    auto* server = static_cast<Http2TestServer*>(self);
    Request& r = server->open_[stream_id];
    r.body_bytes += len;
    if (server->keep_bodies) r.body.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }
  static int OnFrame(nghttp2_session* session, const nghttp2_frame* frame, void* self) {
    auto* server = static_cast<Http2TestServer*>(self);
    if (frame->hd.type == NGHTTP2_RST_STREAM) {
      server->resets_received_.push_back(frame->rst_stream.error_code);
    }
    if (frame->hd.type == NGHTTP2_SETTINGS) {
      for (size_t i = 0; i < frame->settings.niv; ++i) {
        server->announced_.push_back(frame->settings.iv[i].settings_id);
      }
    }
    bool request_ends = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
    if (!request_ends) return 0;
    Request request = server->open_[frame->hd.stream_id];
    server->open_.erase(frame->hd.stream_id);
    if (server->goaway_after != 0 && server->requests_.size() >= server->goaway_after) {
      return 0;  // Above the GOAWAY's last stream: not processed.
    }
    server->requests_.push_back(request);
    if (server->goaway_after != 0 && server->requests_.size() == server->goaway_after) {
      nghttp2_submit_goaway(session, NGHTTP2_FLAG_NONE, request.stream_id, NGHTTP2_NO_ERROR,
                            nullptr, 0);
    }
    Answer a = server->answer(request);
    if (a.stall) return 0;
    if (a.reset != 0) {
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, request.stream_id, a.reset);
      return 0;
    }
    std::string status = std::to_string(a.status);
    nghttp2_nv fields[] = {{reinterpret_cast<uint8_t*>(const_cast<char*>(":status")),
                            reinterpret_cast<uint8_t*>(status.data()), 7, status.size(),
                            NGHTTP2_NV_FLAG_NONE}};
    Body& body = server->bodies_[request.stream_id];
    body.bytes = a.body;
    nghttp2_data_provider provider{.source = {.ptr = &body}, .read_callback = &ReadBody};
    nghttp2_submit_response(session, request.stream_id, fields, 1, &provider);
    return 0;
  }
  static ssize_t ReadBody(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                          nghttp2_data_source* source, void*) {
    auto* body = static_cast<Body*>(source->ptr);
    size_t n = std::min(length, body->bytes.size() - body->sent);
    std::memcpy(buf, body->bytes.data() + body->sent, n);
    body->sent += n;
    if (body->sent == body->bytes.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  nghttp2_session* session_ = nullptr;
  std::map<int32_t, Request> open_;
  std::map<int32_t, Body> bodies_;
  std::vector<Request> requests_;
  std::vector<uint32_t> resets_received_;
  std::vector<int32_t> announced_;  // Each SETTINGS identifier the client sent.
};

}  // namespace uringload::proto::testing
