// The far side of a seeded client simulation: one PRNG that makes every decision, hooked into
// a FakeEventLoop's submits and waits, and the moves every simulation makes (time passing, a
// late completion of a closed incarnation, bytes cut at a random point). Each simulation's
// server derives from it and scripts its protocol in OnSubmit and OnWait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "core/testing/text_counts.h"
#include "net/testing/fake_event_loop.h"

namespace uringload::core::test_support {

class SimulatedPeers {
 public:
  SimulatedPeers(uint64_t seed, uint32_t slots) : random_(seed), slots_(slots) {}
  virtual ~SimulatedPeers() = default;
  SimulatedPeers(const SimulatedPeers&) = delete;
  SimulatedPeers& operator=(const SimulatedPeers&) = delete;

  void Attach(net::FakeEventLoop& loop) {
    loop.on_submit = [this](net::FakeEventLoop& l, const net::FakeEventLoop::Submitted& s) {
      OnSubmit(l, s);
    };
    loop.on_wait = [this](net::FakeEventLoop& l) { OnWait(l); };
  }
  uint64_t stale_injected() const { return stale_; }

 protected:
  virtual void OnSubmit(net::FakeEventLoop& l, const net::FakeEventLoop::Submitted& s) = 0;
  virtual void OnWait(net::FakeEventLoop& l) = 0;

  double Roll() { return std::uniform_real_distribution<double>(0, 1)(random_); }
  bool Chance(double p) { return Roll() < p; }
  int64_t Upto(int64_t hi) { return std::uniform_int_distribution<int64_t>(0, hi)(random_); }

  // At a wait: now and then time passes (up to 2 ms), and now and then a receive of a closed
  // incarnation of some slot completes late with `bytes` (the loop must drop it).
  void TimePassesAndStaleCompletionsArrive(net::FakeEventLoop& l, std::string_view bytes) {
    if (Chance(0.3)) l.Advance(Upto(2 * kMs));
    if (!Chance(0.02)) return;
    auto slot = static_cast<uint32_t>(Upto(static_cast<int64_t>(slots_) - 1));
    if (l.generation(slot) == 0) return;
    l.CompleteStale(slot, net::Op::kRecv, static_cast<int>(bytes.size()), std::string(bytes));
    ++stale_;
  }
  // How many of `size` bytes go in this receive: with probability `p` a random cut (at least
  // one byte, never all), else all of them.
  size_t Cut(size_t size, double p) {
    if (size <= 1 || !Chance(p)) return size;
    return 1 + static_cast<size_t>(Upto(static_cast<int64_t>(size) - 2));
  }
  // A receive of `bytes` on the slot's current incarnation.
  static void Receive(net::FakeEventLoop& l, uint32_t slot, std::string bytes) {
    auto size = static_cast<int>(bytes.size());  // Before the move.
    l.Complete(slot, net::Op::kRecv, size, std::move(bytes));
  }

 private:
  std::mt19937_64 random_;
  uint32_t slots_;
  uint64_t stale_ = 0;
};

}  // namespace uringload::core::test_support
