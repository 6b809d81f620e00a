// FakeEventLoop: the EventLoop test double. It records every operation a worker submits and
// hands the worker only the completions a test scripts, on a clock the test moves, so the
// client and server connection logic are tested without sockets or sleeps (TigerBeetle's
// simulator-driven IO is the model). It keeps the real loop's contract: per-slot generations
// (completions scripted for a closed incarnation are dropped), Close completes with kClose,
// a receive that ends without an error (-ENOBUFS) is armed again, SendPending.
// Header-only, for tests only (the CMake target uringload_net_testing), never the product.
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "net/event_loop.h"

namespace uringload::net {

class FakeEventLoop final : public EventLoop {
 public:
  struct Submitted {
    Op op;
    uint32_t slot;
    std::string bytes;           // kSend: what was sent.
    uint32_t datagram_size = 0;  // SendDatagrams: the size of each datagram in `bytes`.
    uint16_t port = 0;           // kConnect: the target's port.
  };

  explicit FakeEventLoop(uint32_t slots, int64_t start_ns = 1'000'000'000)
      : now_ns_(start_ns), wheel_(start_ns), slots_(slots) {}

  // Called after each submission, to script the peer (e.g. "every connect succeeds").
  std::function<void(FakeEventLoop&, const Submitted&)> on_submit;
  // Called when a wait finds nothing scripted and no timer pending (a server test stops here).
  std::function<void()> on_idle;
  // Called at each wait before anything else, to script what happens as time passes (a
  // response that comes 50 ms after its request).
  std::function<void(FakeEventLoop&)> on_wait;

  // Scripts a completion for the slot's current incarnation, handed over at the next Drain.
  // `more_to_read`: a kRecv that left bytes in the socket (Completion::more_to_read).
  void Complete(uint32_t slot, Op op, int res, std::string data = {}, bool more = true,
                bool more_to_read = false) {
    ready_.push_back({slot, slots_.size() > slot ? slots_[slot].generation : 0, op, res, more,
                      std::move(data), more_to_read});
  }
  // A receive of datagrams of `datagram_size` bytes each (the last one possibly shorter), as a
  // UDP slot's with UDP_GRO.
  void CompleteDatagrams(uint32_t slot, std::string data, uint32_t datagram_size) {
    auto size = static_cast<int>(data.size());
    Complete(slot, Op::kRecv, size, std::move(data));
    ready_.back().datagram_size = datagram_size;
  }
  // The same for an incarnation that is already gone (a late completion).
  void CompleteStale(uint32_t slot, Op op, int res, std::string data = {}) {
    ready_.push_back({slot, slots_[slot].generation - 1, op, res, false, std::move(data), false});
  }
  void Advance(int64_t ns) { now_ns_ += ns; }
  const std::vector<Submitted>& submitted() const { return submitted_; }
  size_t Count(Op op) const {
    size_t n = 0;
    for (const Submitted& s : submitted_) n += s.op == op;
    return n;
  }
  std::string SentOn(uint32_t slot) const {
    std::string out;
    for (const Submitted& s : submitted_) {
      if (s.op == Op::kSend && s.slot == slot) out += s.bytes;
    }
    return out;
  }
  uint32_t generation(uint32_t slot) const { return slots_[slot].generation; }
  // Whether a receive is armed on the slot: a scripted peer sends only then, as the kernel
  // completes a receive only once it is posted.
  bool receiving(uint32_t slot) const { return slots_[slot].receiving; }
  // The completion count each wait asked for, in order.
  const std::vector<unsigned>& wait_targets() const { return wait_targets_; }
  // And the longest each may last, in order.
  const std::vector<int64_t>& wait_timeouts() const { return wait_timeouts_; }
  // SubmitAndSleep's sleeps, in order (each is also a wait above, for 0 completions).
  const std::vector<int64_t>& sleeps() const { return sleeps_; }

  void Connect(uint32_t slot, const SocketAddress& target, const SocketAddress*) override {
    slots_[slot].open = slots_[slot].connecting = true;
    Record({.op = Op::kConnect, .slot = slot, .bytes = {}, .port = target.port()});
  }
  void Send(uint32_t slot, const char* data, uint32_t size) override {
    slots_[slot].sending = true;
    Record({Op::kSend, slot, std::string(data, size)});
  }
  // UDP slots (QUIC): the same operations, the datagrams' size recorded with the bytes.
  void ConnectDatagram(uint32_t slot, const SocketAddress& target,
                       const SocketAddress* source) override {
    Connect(slot, target, source);
  }
  void SendDatagrams(uint32_t slot, const char* data, uint32_t size,
                     uint32_t datagram_size) override {
    slots_[slot].sending = true;
    Record({Op::kSend, slot, std::string(data, size), datagram_size});
  }
  void Receive(uint32_t slot) override {
    slots_[slot].receiving = true;
    Record({Op::kRecv, slot, {}});
  }
  void Accept(uint32_t listener, int) override { Record({Op::kAccept, listener, {}}); }
  void Close(uint32_t slot) override {
    SlotState& s = slots_[slot];
    ++s.generation;
    s = SlotState{.generation = s.generation};
    Record({Op::kClose, slot, {}});
    Complete(slot, Op::kClose, 0);  // The kernel closes at once.
  }
  bool SendPending(uint32_t slot) const override { return slots_[slot].sending; }
  TimerWheel& timers() override { return wheel_; }
  int64_t Now() const override { return now_ns_; }

  // Records the sleep; time passes as for a wait that found nothing scripted.
  absl::Status SubmitAndSleep(int64_t sleep_ns) override {
    sleeps_.push_back(sleep_ns);
    return SubmitAndWait(sleep_ns, 0);
  }

  // Nothing scripted: time passes as the worker asked (so its timers fire), or the test's
  // on_idle ends the run. A worker that never finishes fails instead of hanging.
  absl::Status SubmitAndWait(int64_t timeout_ns, unsigned wait_for) override {
    if (++waits_ > 1'000'000) return absl::InternalError("fake loop: no progress");
    wait_targets_.push_back(wait_for);
    wait_timeouts_.push_back(timeout_ns);
    if (on_wait) on_wait(*this);
    if (!ready_.empty()) return absl::OkStatus();
    if (wheel_.size() == 0 && on_idle) on_idle();
    now_ns_ += timeout_ns > 0 ? timeout_ns : 1'000'000;
    return absl::OkStatus();
  }

  void Drain(CompletionHandler& handler) override {
    std::deque<Scripted> batch;
    batch.swap(ready_);
    for (Scripted& c : batch) {
      if (c.op == Op::kAccept) {
        if (c.res >= 0) slots_[c.res].open = true;
        handler.OnCompletion(MakeCompletion(c.slot, c.op, c.res, c.more));
        continue;
      }
      SlotState& s = slots_[c.slot];
      if (c.generation != s.generation) continue;  // Stale: dropped, as the real loop does.
      if (c.op == Op::kConnect) s.connecting = false;
      if (c.op == Op::kSend) s.sending = false;
      if (c.op == Op::kRecv) {
        if (!c.more) s.receiving = false;
        if (c.res == -ENOBUFS) {  // The loop's business: armed again after the batch.
          if (s.open && !s.receiving) Receive(c.slot);
          continue;
        }
      }
      Completion completion = MakeCompletion(c.slot, c.op, c.res, c.more, c.data);
      completion.more_to_read = c.more_to_read;
      completion.datagram_size = c.datagram_size;
      handler.OnCompletion(completion);
    }
  }

 private:
  struct Scripted {
    uint32_t slot;
    uint32_t generation;
    Op op;
    int res;
    bool more;
    std::string data;
    bool more_to_read;
    uint32_t datagram_size = 0;
  };
  struct SlotState {
    uint32_t generation = 0;
    bool open = false;
    bool connecting = false;
    bool receiving = false;
    bool sending = false;
  };
  void Record(Submitted s) {
    submitted_.push_back(s);
    if (on_submit) on_submit(*this, submitted_.back());
  }

  int64_t now_ns_;
  TimerWheel wheel_;
  std::vector<SlotState> slots_;
  std::deque<Scripted> ready_;
  std::vector<Submitted> submitted_;
  std::vector<unsigned> wait_targets_;
  std::vector<int64_t> wait_timeouts_;
  std::vector<int64_t> sleeps_;
  uint64_t waits_ = 0;
};

}  // namespace uringload::net
