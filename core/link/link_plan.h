// LinkPlan: the validated configuration of `uringload link`: the two TUN endpoints (a network
// namespace and a device in it) and, per direction, the shape of the emulated link: one-way
// delay and jitter, random loss, duplication and reordering, a rate cap with a drop-tail
// queue. Every error names its flag.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace uringload::core {

// The flags of one direction as given (unset: the value for both directions, then the default).
struct LinkShapeOptions {
  std::optional<std::string> delay;      // "25ms"
  std::optional<std::string> jitter;     // "2ms": uniform within +-jitter, order kept
  std::optional<std::string> loss;       // "1%" or "0.01"
  std::optional<std::string> duplicate;  // "0.1%"
  std::optional<std::string> reorder;    // "1%": these skip the delay (sent at once)
  std::optional<std::string> rate;       // "100mbit" (bit, kbit, mbit, gbit: powers of 1000)
  std::optional<std::string> queue;      // "1000" packets or "150000B" bytes (with a rate)
};

struct LinkOptions {
  std::string a;  // NETNS/DEV
  std::string b;
  LinkShapeOptions both = {};
  LinkShapeOptions a_to_b = {};  // Overrides of `both` for packets read from A and written to B.
  LinkShapeOptions b_to_a = {};
  int64_t seed = 1;
  int64_t packets = 16384;  // Packet buffers in the pool (each 2 KiB, the TUN MTU's 1500 fits).
};

struct LinkShape {
  int64_t delay_ns = 0;
  int64_t jitter_ns = 0;
  double loss = 0;
  double duplicate = 0;
  double reorder = 0;
  uint64_t rate_bits_per_second = 0;  // 0: no cap.
  uint32_t queue_packets = 1000;      // With a rate: packets waiting to be sent, at most.
  uint64_t queue_bytes = 0;           // Non-zero: the limit is in bytes instead.
};

struct LinkEndpoint {
  std::string netns;
  std::string device;
  std::string ToString() const { return netns + "/" + device; }
};

struct LinkPlan {
  std::array<LinkEndpoint, 2> ends;  // A, B.
  std::array<LinkShape, 2> shapes;   // [0]: A to B, [1]: B to A.
  uint64_t seed = 1;
  uint32_t packets = 16384;
};

inline constexpr uint32_t kLinkPacketBytes = 2048;

absl::StatusOr<LinkPlan> MakeLinkPlan(const LinkOptions& options);

// "100mbit" -> 100,000,000 bits per second.
absl::StatusOr<uint64_t> ParseLinkRate(const std::string& flag, const std::string& text);

}  // namespace uringload::core
