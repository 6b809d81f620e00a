// Helpers for tests of Http2ClientSession: a recorder of how streams ended, and a request
// template for a method, a path and a body.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/http2_client_session.h"
#include "proto/request_template.h"

namespace uringload::proto::testing {

class Recorder : public Http2ClientSession::Events {
 public:
  void OnStreamEnd(const StreamEnd& end) override { ends.push_back(end); }
  std::vector<StreamEnd> ends;
};

// `grpc`: the request is a gRPC call (its body taken as the call's messages).
inline RequestTemplate Template(const std::string& method, const std::string& target,
                                const std::string& body = "", bool grpc = false) {
  RequestSpec spec;
  spec.grpc = grpc;
  spec.method = method;
  spec.target = target;
  spec.host_header = "example.test:8080";
  spec.body = body;
  absl::StatusOr<RequestTemplate> t = RequestTemplate::Build(spec);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

}  // namespace uringload::proto::testing
