#include "core/run/round_trip_bound.h"

namespace uringload::core {

std::optional<RoundTripBound> JudgeRoundTrip(const RunStats& s, uint32_t connections,
                                             uint32_t in_flight_per_connection,
                                             absl::Duration measured) {
  uint64_t completed = s.completed();
  if (s.connect.count == 0 || completed == 0 || s.latency.count == 0 ||
      measured <= absl::ZeroDuration()) {
    return std::nullopt;
  }
  uint64_t round_trip_ns = s.connect.min;
  if (round_trip_ns == 0) return std::nullopt;
  RoundTripBound r;
  r.round_trip = absl::Nanoseconds(round_trip_ns);
  double response_bytes = static_cast<double>(s.bytes_received) / completed;
  r.in_flight_bytes_per_connection = response_bytes * in_flight_per_connection;
  r.ceiling_bytes_per_second =
      r.in_flight_bytes_per_connection * connections / (round_trip_ns / 1e9);
  r.bytes_per_second = s.bytes_received / absl::ToDoubleSeconds(measured);
  double median = s.latency.Quantile(0.5);
  r.bound = r.round_trip >= kMinRoundTrip && median <= kUnqueuedLatencyFactor * s.latency.min &&
            round_trip_ns >= kRoundTripShareOfLatency * median;
  return r;
}

}  // namespace uringload::core
