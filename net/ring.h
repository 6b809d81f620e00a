// Ring: one io_uring owned by one thread (SINGLE_ISSUER | DEFER_TASKRUN), with a sparse table
// of direct descriptors. Create it in the thread that will use it.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/statusor.h"

namespace uringload::net {

struct RingOptions {
  uint32_t sq_entries = 4096;
  uint32_t cq_entries = 16384;      // Generous: CQ overflow ends multishot operations.
  uint32_t direct_descriptors = 0;  // Size of the registered file table (0 = none).
  // The kernel marks the SQ ring's flags word while completion work waits for the ring's
  // thread (IORING_SETUP_TASKRUN_FLAG): another thread can then see responses wait unread.
  bool flag_waiting_work = false;
};

class Ring {
 public:
  static absl::StatusOr<std::unique_ptr<Ring>> Create(const RingOptions& options);
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  // A free SQE. When the SQ is full, what is queued is submitted first (never waits).
  io_uring_sqe* GetSqe();
  // Makes sure the next `count` GetSqe() calls do not flush, so a linked chain is submitted
  // whole (a flush in the middle of a chain would cut the link).
  void Reserve(unsigned count) {
    if (io_uring_sq_space_left(&ring_) < count) io_uring_submit(&ring_);
  }
  // Submits everything and waits until `wait_for` completions are ready or `timeout_ns`
  // passed (< 0: forever; 0: takes what is ready, arming no timer). Returns 0, -ETIME on
  // timeout, or another -errno.
  int SubmitAndWait(int64_t timeout_ns, unsigned wait_for = 1);
  // Submits everything, sleeps `sleep_ns`, then runs the pending completion work once
  // (DEFER_TASKRUN runs it only when asked for events). Returns 0 or -errno.
  int SubmitAndSleep(int64_t sleep_ns);

  // The SQ ring's flags word (see RingOptions::flag_waiting_work), mapped while the ring lives;
  // any thread may test it with WorkWaiting.
  const unsigned* flags_word() const { return ring_.sq.kflags; }
  // Whether completion work (a response received, a send done) waits for the ring's thread
  // to run it: it runs only when that thread asks for events (DEFER_TASKRUN).
  static bool WorkWaiting(const unsigned* flags_word) {
    return (__atomic_load_n(flags_word, __ATOMIC_RELAXED) & IORING_SQ_TASKRUN) != 0;
  }

  // Calls fn(const io_uring_cqe&) for every ready completion and consumes them.
  template <typename Fn>
  unsigned DrainCompletions(Fn&& fn) {
    unsigned head;
    unsigned count = 0;
    io_uring_cqe* cqe;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      fn(*cqe);
      ++count;
    }
    io_uring_cq_advance(&ring_, count);
    return count;
  }

  // Common operations on direct descriptor `slot` (see docs/architecture.md).
  // Multishot receive into provided-buffer group `group`.
  void RecvMultishot(uint32_t slot, uint16_t group, uint64_t user_data);
  // Send of all `size` bytes (MSG_WAITALL: no short writes short of an error).
  void SendAll(uint32_t slot, const char* data, uint32_t size, uint64_t user_data);
  // Multishot recvmsg into provided-buffer group `group`: each buffer holds an
  // io_uring_recvmsg_out, then the name, control and payload `msg` asks room for. `msg` must
  // live as long as the receive.
  void RecvMsgMultishot(uint32_t slot, const msghdr* msg, uint16_t group, uint64_t user_data);
  // One sendmsg; `msg` and what it points to must stay valid until it completes.
  void SendMsg(uint32_t slot, const msghdr* msg, uint64_t user_data);
  // A read into `buffer` / a write of `data` on a normal descriptor `fd` (a TUN device): one
  // packet each.
  void Read(int fd, char* buffer, uint32_t size, uint64_t user_data);
  void Write(int fd, const char* data, uint32_t size, uint64_t user_data);
  // Cancels the operations with the given user_data, then closes the slot. Cancelling by
  // user_data is a hash lookup; by fd it walks every pending request (~280 us per close at
  // 10,000 connections, measured). Hard links keep the close when a cancel finds nothing;
  // close_direct alone would leave a receive pending forever.
  void CancelThenClose(uint32_t slot, std::span<const uint64_t> pending, uint64_t cancel_data,
                       uint64_t close_data);

  // TCP_NODELAY on `fd` (a direct descriptor when the caller adds IOSQE_FIXED_FILE) from the
  // ring: a socket command (IORING_OP_URING_CMD, Linux 6.7).
  static void PrepNoDelay(io_uring_sqe* sqe, int fd);
  // Whether this kernel runs PrepNoDelay: tried once on a plain socket (call before any other
  // operation is in flight).
  bool CanSetSocketOptions();

  // Puts a normal socket into direct descriptor `slot` (the ring keeps its own reference;
  // the caller may close `fd` afterwards). Returns 0 or -errno.
  int InstallFile(uint32_t slot, int fd);

  io_uring* raw() { return &ring_; }
  uint32_t direct_descriptors() const { return direct_descriptors_; }

 private:
  Ring() = default;
  io_uring ring_{};
  uint32_t direct_descriptors_ = 0;
};

}  // namespace uringload::net
