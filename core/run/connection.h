// Connection: one client connection's state machine, as in wrk:
//   kIdle -> kConnecting -> kActive (send, receive, parse; repeat per request) -> kClosing
//   -> kIdle (reconnect for the next request) or kDone.
// kActive is exactly the time it counts in connections_open. A connection waiting for a
// place in the connect ramp stays kIdle with its request (Worker::Queued).
// Until it is kActive its requests wait in `pending` as a ring, oldest at `head`; once open,
// they are its driver's (core/run/connection_driver.h), which speaks its protocol: HTTP/1.1
// keeps the ring (-p D requests answered in order), the stream protocols use the D entries
// as a pool of streams answered in any order (entries marked in_use, `head` 0). All memory is
// allocated once per worker; nothing here grows with the request count. Which I/O is pending
// on the slot is the event loop's to know.
#pragma once

#include <cstdint>
#include <span>

#include "net/timer_wheel.h"

namespace uringload::core {

enum class ConnState : uint8_t { kIdle, kConnecting, kActive, kClosing, kDone };

inline constexpr uint16_t kNoOrigin = UINT16_MAX;

// Where the connection's first connect attempt is, for the ramp (connections.ramp_seconds):
// it moves forward only, and the ramp ends when every asked one has ended.
enum class FirstConnect : uint8_t { kNotAsked, kAsked, kEnded };

// A started request that has no outcome yet.
struct PendingRequest {
  uint64_t index = 0;
  int64_t intended_ns = 0;  // Open model: when the schedule said to start it.
  int64_t sent_ns = 0;      // Just before the submit that carried it (0: not yet).
  // When its response's head came, and its body's first byte (0: not yet, or no body).
  int64_t head_ns = 0;
  int64_t body_ns = 0;
  uint32_t target = 0;  // Index into the plan's targets.
  bool warmup = false;  // Started during --warmup: kept out of the statistics.
  bool in_use = false;  // Streams: the entry is an open stream's.
  uint8_t retries = 0;  // Streams: times the server refused it unprocessed.
  // Open model: it waited for a connection (none was free, or its own had to connect first,
  // or it is sent again): its lag is not the client's, and stays out of the schedule lag.
  bool waited = false;
};

class ConnectionDriver;

struct Connection {
  net::TimerNode timer;               // First member: the timer wheel hands back a TimerNode*.
  std::span<PendingRequest> pending;  // -p entries: a ring, or the driver's pool of streams.
  // What speaks on it: from the connect for a driver with its own transport (QUIC), from the
  // open for TCP (by ALPN); null while a TCP connection connects, and once it closed.
  ConnectionDriver* driver = nullptr;
  int64_t connect_started_ns = 0;  // The current connect attempt's start.
  uint32_t send_size = 0;          // Bytes of the send in flight (0: none).
  uint32_t slot = 0;               // Direct descriptor slot, fixed for the connection's life.
  uint16_t head = 0;               // Oldest pending request.
  uint16_t count = 0;              // Pending requests.
  // HTTP/1.1: of them (oldest first), handed to a send, and of those, with sent_ns set.
  // Streams: opened since the last send, and 1 while the slot waits for its stamp.
  uint16_t submitted = 0;
  uint16_t stamped = 0;
  uint16_t address = 0;  // Index into the plan's addresses.
  // Index into the plan's origins: where it connects. A flow's user binds its connections to
  // the origins its steps go to (kNoOrigin: not yet bound).
  uint16_t origin = 0;
  int16_t source = -1;  // Index into the plan's sources; -1: the kernel chooses.
  // -p: responses ended by receives since the socket was last drained (Worker::CountReceiveYield).
  uint16_t undrained_responses = 0;
  ConnState state = ConnState::kIdle;
  FirstConnect first_connect = FirstConnect::kNotAsked;
  // A flag beside the state, not a state: true exactly while the slot is in Worker::listed_
  // (open model: it may take a request), whatever its state; it keeps the list free of twins.
  bool listed = false;
  // Likewise for Worker::queued_flushes_ (streams: frames go out once the drain is over).
  bool flush_queued = false;

  PendingRequest& oldest() { return pending[head]; }
  // The k-th pending request, oldest first (k == count: the next free entry). A compare, not
  // a modulo: a division per request was measurable (callgrind, ~40 instructions).
  PendingRequest& at(uint32_t k) {
    uint32_t i = head + k;
    return pending[i >= pending.size() ? i - pending.size() : i];
  }
  // Drops the oldest pending request.
  void PopOldest() {
    if (++head == pending.size()) head = 0;
    --count;
  }
};

}  // namespace uringload::core
