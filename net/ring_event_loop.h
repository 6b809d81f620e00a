// RingEventLoop: the EventLoop over one io_uring (SINGLE_ISSUER | DEFER_TASKRUN), its table of
// direct descriptors, its provided-buffer ring and its timer wheel. Create it in the thread
// that will use it. Everything that touches an SQE or a CQE for the workers lives here.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "net/buffer_ring.h"
#include "net/event_loop.h"
#include "net/ring.h"

namespace uringload::net {

struct RingEventLoopOptions {
  uint32_t slots = 0;  // Direct descriptors (connections held at once).
  uint32_t sq_entries = 4096;
  uint32_t cq_entries = 16384;  // Generous: CQ overflow ends multishot operations.
  // Connections the receive buffers are sized for (ClassicReceiveBuffers).
  uint32_t receive_connections = 256;
  // Incremental buffers when the kernel has them (6.12); false: classic 1 KiB ones.
  bool incremental_buffers = true;
  // Receive buffers for UDP slots (ConnectDatagram), a power of two of kDatagramBufferSize
  // bytes each, apart from the TCP ones (a run of datagrams joined by GRO is up to 64 KiB);
  // 0: the loop carries no datagrams.
  uint32_t datagram_buffers = 0;
  bool accept_into_free_slots = false;  // A server: accepted connections take free slots.
  bool flag_waiting_work = false;       // RingOptions::flag_waiting_work.
};

class RingEventLoop final : public EventLoop {
 public:
  static absl::StatusOr<std::unique_ptr<RingEventLoop>> Create(const RingEventLoopOptions& options);

  // Room for a recvmsg header, a UDP_GRO control message and the largest datagram run.
  static constexpr uint32_t kDatagramBufferSize = 64 * 1024 + 256;

  void Connect(uint32_t slot, const SocketAddress& target, const SocketAddress* source) override;
  void ConnectDatagram(uint32_t slot, const SocketAddress& target,
                       const SocketAddress* source) override;
  void Send(uint32_t slot, const char* data, uint32_t size) override;
  void SendDatagrams(uint32_t slot, const char* data, uint32_t size,
                     uint32_t datagram_size) override;
  void ListenDatagram(uint32_t slot, int fd) override;
  void Receive(uint32_t slot) override;
  void Accept(uint32_t listener, int fd) override;
  void Close(uint32_t slot) override;
  void SetNoDelay(uint32_t slot) override;
  bool SendPending(uint32_t slot) const override { return slots_[slot].sending; }
  TimerWheel& timers() override { return *wheel_; }
  int64_t Now() const override;
  absl::Status SubmitAndWait(int64_t timeout_ns, unsigned wait_for) override;
  absl::Status SubmitAndSleep(int64_t sleep_ns) override;
  void Drain(CompletionHandler& handler) override;
  const unsigned* WaitingWorkWord() const override {
    return flag_waiting_work_ ? ring_->flags_word() : nullptr;
  }
  const ReceiveBufferLayout& receive_buffers() const { return buffers_->layout(); }

 private:
  // What is pending on a slot's current connection, so Close cancels exactly that.
  struct SlotState {
    uint32_t generation = 0;  // Bumped by Close: completions of older ops are stale.
    int socket_error = 0;     // errno of a failed socket creation, reported by the connect.
    bool open = false;        // A connection lives in the slot (not closed since).
    bool datagram = false;    // A UDP socket (ConnectDatagram).
    bool connecting = false;
    bool receiving = false;
    bool sending = false;
    bool rearm_queued = false;
  };

  RingEventLoop() = default;
  uint64_t Data(uint32_t slot, Op op) const {
    return PackUserData(slot, slots_[slot].generation, op);
  }
  void OnCqe(const io_uring_cqe& cqe, CompletionHandler& handler);
  // The slot takes a new connection (TCP or, `datagram`, UDP): it must hold none.
  SlotState& OpenSlot(uint32_t slot, bool datagram);
  void OnReceive(uint32_t slot, const io_uring_cqe& cqe, CompletionHandler& handler);
  // A datagram receive's buffer holds the recvmsg header and control message before the data.
  Completion DatagramCompletion(uint32_t slot, std::string_view buffer, bool more);
  void QueueRearm(uint32_t slot, uint64_t incarnation, bool more);
  void DropBuffer(const io_uring_cqe& cqe);

  // A UDP slot's sendmsg header, kept until the send completes.
  struct DatagramSend {
    msghdr msg{};
    iovec iov{};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(uint16_t))] = {};
  };

  std::unique_ptr<Ring> ring_;
  bool can_set_no_delay_ = false;  // The kernel sets socket options from the ring.
  bool flag_waiting_work_ = false;
  std::unique_ptr<ProvidedBufferRing> buffers_;
  std::unique_ptr<ProvidedBufferRing> datagram_buffers_;  // None unless asked for.
  // What every datagram receive asks room for: the sender's address and a control message.
  msghdr datagram_receive_{};
  std::vector<DatagramSend> datagram_sends_;  // Per slot, when the loop carries datagrams.
  std::unique_ptr<TimerWheel> wheel_;
  std::vector<SlotState> slots_;
  // Receives to arm again after this batch: (slot, generation), so a slot closed and reopened
  // within the batch is not armed before its new connection is up.
  std::vector<std::pair<uint32_t, uint32_t>> rearm_;
  std::vector<Completion> failed_early_;  // Connects that failed before reaching the ring.
};

}  // namespace uringload::net
