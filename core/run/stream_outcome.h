// One mapping from how a request's stream ended (proto::StreamEnd, whatever the stream
// protocol) to the request's outcome; what differs between the protocols is a StreamRules row.
#pragma once

#include <cstdint>

#include "core/outcome.h"
#include "proto/stream_end.h"

namespace uringload::core {

struct StreamRules {
  ParseFailure malformed;   // This side found the response malformed.
  ParseFailure incomplete;  // It ended without a whole response and without an error code.
  uint8_t max_retries;      // Times a request the server did not process goes out again.
  int (*reset_cause)(uint64_t code);  // The cause of a reset, by the protocol's error code.
};

struct StreamVerdict {
  bool retry = false;     // Unprocessed: it goes out again (outcome and error unset).
  bool response = false;  // A whole response came.
  Outcome outcome = Outcome::kOk;
  int error = 0;  // Its errno, cause or ParseFailure.
};

// `retries`: how many times the request went out again already.
inline StreamVerdict JudgeStreamEnd(const proto::StreamEnd& end, uint8_t retries,
                                    const StreamRules& rules) {
  auto failure = [](ParseFailure why) {
    return StreamVerdict{.outcome = Outcome::kParseError, .error = static_cast<int>(why)};
  };
  if (end.complete && end.grpc && (end.grpc_status < 0 || end.grpc_malformed)) {
    StreamVerdict v =
        failure(end.grpc_malformed ? ParseFailure::kGrpcMalformed : ParseFailure::kGrpcNoStatus);
    v.response = true;  // A response, but no gRPC call's end.
    return v;
  }
  if (end.complete) return {.response = true};
  if (end.malformed) return failure(rules.malformed);
  if (end.unprocessed && retries < rules.max_retries) return {.retry = true};
  if (end.reset) return {.outcome = Outcome::kReset, .error = rules.reset_cause(end.error_code)};
  return failure(rules.incomplete);
}

}  // namespace uringload::core
