// JudgeRoundTrip: whether a closed-model run moved all that its connections can carry in one
// round trip each. A connection has at most `pipeline` responses in flight, and none arrives
// sooner than a round trip, so the run's ceiling is connections x in-flight bytes / round
// trip (the bandwidth-delay product read backwards). When the typical request took no longer
// than the fastest (it queued nowhere: not in the server, not on the link) and the round trip
// is most of that time, the round trip set the pace: more connections, or a deeper pipeline,
// carry more.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/time/time.h"
#include "core/run/worker_stats.h"

namespace uringload::core {

// The round trip is judged the bound when the median latency is within this factor of the
// fastest request (nothing queued)...
inline constexpr double kUnqueuedLatencyFactor = 1.1;
// ...and the round trip is at least this share of the median (a 64 KiB response takes 1.5
// round trips on Linux: TCP paces it out over half a round trip)...
inline constexpr double kRoundTripShareOfLatency = 0.5;
// ...and at least this long: a loopback connect (15 to 100 us) is the machine's own time.
inline constexpr absl::Duration kMinRoundTrip = absl::Microseconds(200);

struct RoundTripBound {
  // The path's round trip: the fastest connect (SYN to SYN-ACK). Slower ones waited in a
  // queue or for a lost SYN; requests carry the server's time.
  absl::Duration round_trip;
  double in_flight_bytes_per_connection = 0;  // Responses in flight x their mean size.
  double ceiling_bytes_per_second = 0;        // All connections, one round trip each.
  double bytes_per_second = 0;                // What the run received.
  bool bound = false;                         // The round trip set the pace.
};

// `in_flight_per_connection`: the requests a connection keeps in flight (-p, or the HTTP/2
// streams); `connections`: those the run opened. None without a connect or a completed
// request to go by.
std::optional<RoundTripBound> JudgeRoundTrip(const RunStats& s, uint32_t connections,
                                             uint32_t in_flight_per_connection,
                                             absl::Duration measured);

}  // namespace uringload::core
