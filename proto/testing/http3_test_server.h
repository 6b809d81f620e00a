// Http3TestServer: an HTTP/3 server in memory (nghttp3's server connection) for tests of the
// client side without QUIC: the bytes of each stream go in, the bytes to answer come out. It
// answers each request, once it is whole, with 200 and "answer to PATH (N body bytes)",
// unless the request's stream is `silent`, and keeps what it saw.
#pragma once

#include <gtest/gtest.h>
#include <nghttp3/nghttp3.h>

#include <map>
#include <set>
#include <string>

namespace uringload::proto::testing {

inline std::string Http3Text(nghttp3_rcbuf* buffer) {
  nghttp3_vec v = nghttp3_rcbuf_get_buf(buffer);
  return std::string(reinterpret_cast<const char*>(v.base), v.len);
}

class Http3TestServer {
 public:
  Http3TestServer() {
    nghttp3_callbacks callbacks{};
    callbacks.recv_header = [](nghttp3_conn*, int64_t id, int32_t, nghttp3_rcbuf* name,
                               nghttp3_rcbuf* value, uint8_t, void* self, void*) {
      static_cast<Http3TestServer*>(self)->requests[id].fields[Http3Text(name)] = Http3Text(value);
      return 0;
    };
    callbacks.recv_data = [](nghttp3_conn*, int64_t id, const uint8_t* data, size_t length,
                             void* self, void*) {
      static_cast<Http3TestServer*>(self)->requests[id].body.append(
          reinterpret_cast<const char*>(data), length);
      return 0;
    };
    callbacks.end_stream = [](nghttp3_conn* conn, int64_t id, void* self, void*) {
      return static_cast<Http3TestServer*>(self)->Answer(conn, id);
    };
    nghttp3_settings settings;
    nghttp3_settings_default(&settings);
    EXPECT_EQ(nghttp3_conn_server_new(&conn, &callbacks, &settings, nghttp3_mem_default(), this),
              0);
    EXPECT_EQ(nghttp3_conn_bind_control_stream(conn, 3), 0);
    EXPECT_EQ(nghttp3_conn_bind_qpack_streams(conn, 7, 11), 0);
    nghttp3_conn_set_max_client_streams_bidi(conn, 100);
  }
  ~Http3TestServer() { nghttp3_conn_del(conn); }

  int Answer(nghttp3_conn* c, int64_t id) {
    if (silent.count(id) > 0) return 0;
    Request& r = requests[id];
    r.answer =
        "answer to " + r.fields[":path"] + " (" + std::to_string(r.body.size()) + " body bytes)";
    nghttp3_nv status = {.name = (uint8_t*)":status",
                         .value = (uint8_t*)"200",
                         .namelen = 7,
                         .valuelen = 3,
                         .flags = 0};
    nghttp3_data_reader reader{.read_data = [](nghttp3_conn*, int64_t id, nghttp3_vec* vec, size_t,
                                               uint32_t* flags, void* self,
                                               void*) -> nghttp3_ssize {
      Request& r = static_cast<Http3TestServer*>(self)->requests[id];
      *flags |= NGHTTP3_DATA_FLAG_EOF;
      if (r.answer_given) return 0;
      r.answer_given = true;
      vec[0] = {reinterpret_cast<uint8_t*>(r.answer.data()), r.answer.size()};
      return 1;
    }};
    return nghttp3_conn_submit_response(c, id, &status, 1, &reader);
  }

  struct Request {
    std::map<std::string, std::string> fields;
    std::string body;
    std::string answer;
    bool answer_given = false;
  };
  nghttp3_conn* conn = nullptr;
  std::map<int64_t, Request> requests;
  std::set<int64_t> silent;  // Requests never answered.
};

}  // namespace uringload::proto::testing
