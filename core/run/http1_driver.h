// Http1Driver: HTTP/1.1 on a worker's connections, plain or over TLS. A connection holds up to
// -p requests in flight (its ring of PendingRequests), rendered back-to-back into its buffer
// and sent with one send at a time; responses come back in order through llhttp
// (proto::ResponseParser), one receive possibly ending several of them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/run/connection_driver.h"
#include "proto/response_parser.h"

namespace uringload::core {

class Http1Driver final : public ConnectionDriver {
 public:
  Http1Driver(DriverHost* host, const DriverEnv& env);

  void Open(Connection& c) override;
  uint32_t Capacity(const Connection& c) const override {
    return static_cast<uint32_t>(c.pending.size());
  }
  void Add(Connection& c, const PendingRequest& request) override;
  void Flush(Connection& c) override;
  void Refill(Connection& c) override;
  void Stamp(Connection& c, int64_t now) override;
  void FailAll(Connection& c, Outcome outcome, int error) override;
  void OnSent(Connection& c, int res) override;
  void OnReceived(Connection& c, const net::Completion& completion) override;
  void OnTimeout(Connection& c, int64_t now) override;
  void Release(Connection& c) override;

 private:
  // A connection's bytes to send and its response parser, whose body pieces (--stream) it
  // hands to the driver with their connection.
  struct Slot final : proto::BodySink {
    proto::ResponseParser parser;      // Parses the response to the oldest request.
    std::span<char> out;               // Rendered bytes not yet sent; empty: see static_out.
    const char* static_out = nullptr;  // Without `out`: the unsent rest of a template.
    uint32_t out_size = 0;             // Bytes waiting or in the send in flight.
    Http1Driver* driver = nullptr;
    Connection* connection = nullptr;  // Set when it opens.
    void OnBodyPiece(std::string_view piece) override { driver->Body(*connection, piece); }
  };

  // Renders `request` behind what the connection has not sent yet (it is in the ring).
  void Render(Connection& c, const PendingRequest& request);
  void OnData(Connection& c, std::string_view data);
  // The oldest request's response begins (its parser, and its stream's events, from nothing).
  void StartResponse(Connection& c);
  void Body(Connection& c, std::string_view piece);
  void OnPeerClosed(Connection& c);
  // Ends the oldest request in flight.
  void FinishOldest(Connection& c, Outcome outcome, int error);
  // The requests sent behind a response that closed the connection go out again.
  void Requeue(Connection& c);
  void ScheduleTimeout(Connection& c);

  DriverHost* host_;
  DriverEnv env_;
  std::vector<Slot> slots_;
  std::vector<char> storage_;      // -p rendered requests per connection.
  uint32_t responses_parsed_ = 0;  // Wraps; only differences count.
};

}  // namespace uringload::core
