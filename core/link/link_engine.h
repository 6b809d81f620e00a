// LinkEngine: `uringload link`'s event loop: one io_uring reads IP packets from the TUN device
// of each side into a fixed pool of buffers, gives each to its direction's LinkDirection, and
// writes it to the other side's device when it is due (one timer: the earliest head). No
// thread per packet and no allocation per packet; the pool bounds the memory.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "core/link/link_direction.h"
#include "core/wake_margin.h"
#include "net/listener.h"
#include "net/ring.h"

namespace uringload::core {

class LinkEngine {
 public:
  // `devices`: A's and B's TUN descriptors (OpenTunDevice).
  LinkEngine(const LinkPlan& plan, std::array<net::UniqueFd, 2> devices);

  // Forwards until `stop` is set; while `blackhole` is set every packet entering is dropped.
  // Call from one thread (the ring is made there).
  absl::Status Run(const std::atomic<bool>& stop, const std::atomic<bool>& blackhole);
  // Each direction's counts ([0]: A to B); safe to read after Run returned.
  std::array<LinkCounters, 2> Counters() const;
  // Each direction's lateness (LinkDirection::Lateness); after Run returned.
  std::array<HistogramSnapshot, 2> Lateness() const;

 private:
  void ArmReads(uint32_t side);
  void Write(uint32_t to_side, uint32_t packet);
  void Release(uint32_t packet);
  void OnCompletion(uint64_t data, int res, bool blackhole);

  LinkPlan plan_;
  std::array<net::UniqueFd, 2> devices_;
  std::unique_ptr<net::Ring> ring_;
  std::array<LinkDirection, 2> directions_;
  std::vector<char> buffers_;          // plan_.packets buffers of kLinkPacketBytes.
  std::vector<uint32_t> lengths_;      // Each buffer's packet size.
  std::vector<uint8_t> references_;    // Writes (or the read) that still use each buffer.
  std::vector<uint32_t> free_;         // Free buffers.
  std::array<uint32_t, 2> reading_{};  // Reads in flight per side.
  WakeMargin margin_;                  // How long before a due packet the loop polls.
  absl::Status failure_;
};

}  // namespace uringload::core
