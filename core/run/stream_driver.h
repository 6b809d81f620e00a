// StreamDriver: what the stream protocols (HTTP/2, HTTP/3) share on a worker's connections.
// A request is a stream; streams end in any order, so the connection's -p entries are a pool
// (in_use) instead of a ring, and a stream's tag is its entry. One mapping turns a stream's
// end into its request's outcome (JudgeStreamEnd); the timeout runs from the oldest stream's
// send, and a connection that received nothing since is dead.
#pragma once

#include <cstdint>
#include <vector>

#include "core/run/connection_driver.h"
#include "core/run/stream_outcome.h"

namespace uringload::core {

class StreamDriver : public ConnectionDriver {
 public:
  void Add(Connection& c, const PendingRequest& request) override;
  void Refill(Connection& c) override;
  void Stamp(Connection& c, int64_t now) override;
  void FailAll(Connection& c, Outcome outcome, int error) override;
  void OnTimeout(Connection& c, int64_t now) override;

 protected:
  StreamDriver(DriverHost* host, const DriverEnv& env, const StreamRules& rules);
  ~StreamDriver() override = default;

  // Opens a stream for the request in entry `k` (Capacity said the protocol allows it).
  virtual void Submit(Connection& c, uint32_t k) = 0;
  virtual void Cancel(Connection& c, uint32_t k) = 0;  // It timed out: the server is told.
  // Whether the connection may still open a stream, now or once the server allows more.
  virtual bool MayOpen(const Connection& c) const { return Capacity(c) > 0; }

  // The requests that waited in the ring become the first streams (the connection opened).
  void TakeWaiting(Connection& c);
  // The streams opened since the last send go out with the send just made: the next submit
  // stamps them.
  void MarkSent(Connection& c);
  // The session reported how far stream `tag`'s response came, or how stream `end.tag` ended.
  void Progress(Connection& c, uint32_t tag, proto::ResponseProgress progress);
  void Body(Connection& c, uint32_t tag, std::string_view piece);  // --stream.
  void EndStream(Connection& c, const proto::StreamEnd& end);
  // Ends the request in entry `k`; the caller moves the timeout after (once for every stream
  // that ends together).
  void FinishStream(Connection& c, uint32_t k, Outcome outcome, int error,
                    const ResponseFacts& response = {});
  // The request in entry `k` was not processed: it goes out again, as for FinishStream.
  void RetryStream(Connection& c, uint32_t k);
  void ScheduleStreamTimeout(Connection& c);
  // After input that may have ended streams: the timeout moves, and the connection refills
  // or (--no-keepalive, its one response came) closes.
  void AfterInput(Connection& c, uint16_t open_before, uint32_t responses_before);

  DriverHost* host_;
  DriverEnv env_;
  StreamRules rules_;
  // By slot: the clock after the wait that brought the connection's latest receive. A stream
  // that times out with nothing received since its send means the connection is dead.
  std::vector<int64_t> received_ns_;
  uint32_t responses_parsed_ = 0;  // Wraps; only differences count.
};

}  // namespace uringload::core
