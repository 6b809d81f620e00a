#include "core/link/link_engine.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/base/status_macros.h"
#include "net/clock.h"

namespace uringload::core {
namespace {

// Reads kept in flight per device: a burst of this many packets is taken in one wake-up.
constexpr uint32_t kReadsPerSide = 64;
// The longest the loop sleeps without looking at `stop` and `blackhole`.
constexpr int64_t kPollNs = 20'000'000;

enum Op : uint64_t { kRead = 1, kWrite = 2 };

// user_data: the operation, the side it reads from or writes to, and the buffer.
uint64_t Pack(Op op, uint32_t side, uint32_t packet) {
  return op << 60 | uint64_t{side} << 56 | packet;
}

}  // namespace

LinkEngine::LinkEngine(const LinkPlan& plan, std::array<net::UniqueFd, 2> devices)
    : plan_(plan),
      devices_(std::move(devices)),
      directions_{LinkDirection(plan.shapes[0], plan.seed, 2 * plan.packets),
                  LinkDirection(plan.shapes[1], plan.seed ^ 0x5bd1e995, 2 * plan.packets)},
      buffers_(size_t{plan.packets} * kLinkPacketBytes),
      lengths_(plan.packets),
      references_(plan.packets) {
  free_.reserve(plan.packets);
  for (uint32_t p = plan.packets; p > 0; --p) free_.push_back(p - 1);
}

void LinkEngine::ArmReads(uint32_t side) {
  while (reading_[side] < kReadsPerSide && !free_.empty()) {
    uint32_t packet = free_.back();
    free_.pop_back();
    references_[packet] = 1;
    ring_->Read(devices_[side].get(), &buffers_[size_t{packet} * kLinkPacketBytes],
                kLinkPacketBytes, Pack(kRead, side, packet));
    ++reading_[side];
  }
}

void LinkEngine::Write(uint32_t to_side, uint32_t packet) {
  ring_->Write(devices_[to_side].get(), &buffers_[size_t{packet} * kLinkPacketBytes],
               lengths_[packet], Pack(kWrite, to_side, packet));
}

void LinkEngine::Release(uint32_t packet) {
  URINGLOAD_CHECK(references_[packet] > 0, "link buffer %u released twice", packet);
  if (--references_[packet] == 0) free_.push_back(packet);
}

void LinkEngine::OnCompletion(uint64_t data, int res, bool blackhole) {
  auto op = static_cast<Op>(data >> 60);
  uint32_t side = (data >> 56) & 0xf;
  auto packet = static_cast<uint32_t>(data & 0xffffffff);
  if (op == kWrite) {
    // The packet left for `side`: it was in the direction towards it. A full device queue
    // (ENOBUFS) or a device going down loses it, as a real link would.
    if (res > 0) {
      directions_[1 - side].Forwarded(static_cast<uint32_t>(res));
    } else {
      directions_[1 - side].WriteFailed();
    }
    Release(packet);
    return;
  }
  --reading_[side];
  if (res <= 0) {
    Release(packet);
    if (res != -EAGAIN && res != -EINTR && failure_.ok()) {
      failure_ = absl::UnavailableError(absl::StrCat("reading ", plan_.ends[side].ToString(), ": ",
                                                     res == 0 ? "end of file" : strerror(-res)));
    }
    return;
  }
  lengths_[packet] = static_cast<uint32_t>(res);
  int copies = 0;
  LinkFate fate = directions_[side].Arrive(packet, static_cast<uint32_t>(res),
                                           net::MonotonicNanos(), blackhole, &copies);
  if (fate == LinkFate::kQueued) {
    references_[packet] = static_cast<uint8_t>(copies);
  } else if (fate == LinkFate::kSentAtOnce) {
    Write(1 - side, packet);
  } else {
    Release(packet);
  }
}

absl::Status LinkEngine::Run(const std::atomic<bool>& stop, const std::atomic<bool>& blackhole) {
  URINGLOAD_ASSIGN_OR_RETURN(std::unique_ptr<net::Ring> ring,
                             net::Ring::Create({.sq_entries = 1024, .cq_entries = 8192}));
  ring_ = std::move(ring);
  while (!stop.load(std::memory_order_relaxed) && failure_.ok()) {
    for (uint32_t side = 0; side < 2; ++side) {
      ArmReads(side);
    }
    int64_t now = net::MonotonicNanos();
    for (uint32_t side = 0; side < 2; ++side) {
      while (std::optional<uint32_t> packet = directions_[side].PopDue(now)) {
        Write(1 - side, *packet);
      }
    }
    // Sleep until the margin before the next due packet, then poll: a timed wait on this VM
    // ends 180 us late at the median (docs/performance.md), which would add to every delay.
    int64_t due = std::min(directions_[0].NextDue(), directions_[1].NextDue());
    int64_t until = due == INT64_MAX ? now + kPollNs : due - margin_.ns();
    int ret = 0;
    if (until > now) {
      int64_t wait = std::min<int64_t>(until - now, kPollNs);
      ret = ring_->SubmitAndWait(wait);
      if (ret == -ETIME) margin_.Observe(net::MonotonicNanos() - (now + wait));
    } else {
      ret = ring_->SubmitAndWait(0);
    }
    if (ret < 0 && ret != -ETIME && ret != -EINTR) {
      return absl::UnavailableError(absl::StrCat("io_uring: ", strerror(-ret)));
    }
    bool dark = blackhole.load(std::memory_order_relaxed);
    ring_->DrainCompletions(
        [&](const io_uring_cqe& cqe) { OnCompletion(cqe.user_data, cqe.res, dark); });
  }
  return failure_;
}

std::array<LinkCounters, 2> LinkEngine::Counters() const {
  return {directions_[0].Final(), directions_[1].Final()};
}

std::array<HistogramSnapshot, 2> LinkEngine::Lateness() const {
  return {directions_[0].Lateness(), directions_[1].Lateness()};
}

}  // namespace uringload::core
