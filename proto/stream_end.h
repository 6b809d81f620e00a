// StreamEnd: how one request's stream ended, as every stream protocol's client session
// (HTTP/2, HTTP/3) reports it, so that one mapping (core/run/stream_outcome.h) turns it into
// the request's outcome whatever the protocol.
#pragma once

#include <cstdint>

namespace uringload::proto {

// How far a stream's response came, as its session reports it once each during Receive(): its
// final head, its body's first byte, and (gRPC) its first whole message.
enum class ResponseProgress : uint8_t { kHead, kFirstByte, kFirstMessage };

struct StreamEnd {
  uint32_t tag = 0;
  int status = 0;           // The response's :status (0: no response header came).
  uint64_t error_code = 0;  // The protocol's code the stream (or connection) was ended with.
  bool complete = false;    // The response ended (END_STREAM, the stream's FIN).
  // This side found the response malformed (RFC 9113 8.1.1, RFC 9114 4.1.2) and reset the
  // stream: the response's fault, not a reset by the server.
  bool malformed = false;
  // The server never processed it (HTTP/2's REFUSED_STREAM or above a GOAWAY's last stream
  // id, HTTP/3's H3_REQUEST_REJECTED): it may be sent again.
  bool unprocessed = false;
  bool reset = false;  // error_code is an error (not the protocol's NO_ERROR).
  // The body contains the text of the session's body matcher (none set: false).
  bool body_found = false;
  // A gRPC call (its request a gRPC template).
  bool grpc = false;
  // gRPC: the call's grpc-status from its trailers, or from a trailers-only
  // response (-1: none came, or a value that is no code); the whole messages of its DATA; its
  // DATA broke gRPC's message framing, or ended within a message.
  int grpc_status = -1;
  uint64_t grpc_messages = 0;
  bool grpc_malformed = false;
};

}  // namespace uringload::proto
