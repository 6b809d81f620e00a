// Fuzzes the client's HTTP/2 path: four streams open, then any bytes from the "server", split
// at any point, with the client's own frames drained between the pieces. Invariants: each
// stream ends at most once, with a tag it was given; a stream that ended complete has a
// status; no crash, no UB, no leak.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "proto/http2_client_session.h"

using uringload::proto::Http2ClientSession;
using uringload::proto::RequestSpec;
using uringload::proto::RequestTemplate;
using uringload::proto::StreamEnd;

namespace {

class Ends : public Http2ClientSession::Events {
 public:
  void OnStreamEnd(const StreamEnd& end) override {
    if (end.tag >= 4 || ended[end.tag]) abort();
    if (end.complete && (end.status < 100 || end.status > 999)) abort();
    ended[end.tag] = true;
  }
  bool ended[4] = {};
};

const RequestTemplate& Template() {
  static const RequestTemplate* t = [] {
    RequestSpec spec;
    spec.target = "/{i}";
    spec.host_header = "fuzz.test";
    spec.body = "body";
    return new RequestTemplate(*RequestTemplate::Build(spec));
  }();
  return *t;
}

void Drain(Http2ClientSession& session) {
  for (std::string_view out; !(out = session.Output()).empty();) {
    session.Sent(static_cast<uint32_t>(out.size()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t split = data[0] % size;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  Http2ClientSession session(4);
  Ends ends;
  if (!session.Start(&ends).ok()) abort();
  for (uint32_t tag = 0; tag < 4; ++tag) {
    if (!session.Submit(Template(), {.index = tag}, tag).ok()) abort();
  }
  Drain(session);
  for (std::string_view piece : {input.substr(0, split), input.substr(split)}) {
    if (!session.Receive(piece).ok()) return 0;
    Drain(session);
    if (session.failed()) return 0;
  }
  return 0;
}
