#include "net/ring.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstring>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "net/listener.h"

namespace uringload::net {
namespace {

absl::Status ErrnoStatus(int negative_errno, const char* what) {
  return absl::UnavailableError(absl::StrCat(what, ": ", strerror(-negative_errno)));
}

// Linux 6.7's SOCKET_URING_OP_SETSOCKOPT, which Debian 12's headers and liburing 2.3 predate;
// the SQE is laid out as liburing 2.5's io_uring_prep_cmd_sock lays it out.
constexpr uint32_t kSocketUringOpSetsockopt = 3;
constexpr int kOne = 1;

}  // namespace

absl::StatusOr<std::unique_ptr<Ring>> Ring::Create(const RingOptions& options) {
  std::unique_ptr<Ring> ring(new Ring());
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SUBMIT_ALL |
                 IORING_SETUP_CQSIZE;
  if (options.flag_waiting_work) params.flags |= IORING_SETUP_TASKRUN_FLAG;
  params.cq_entries = options.cq_entries;
  int ret = io_uring_queue_init_params(options.sq_entries, &ring->ring_, &params);
  if (ret < 0) return ErrnoStatus(ret, "io_uring setup (needs Linux >= 6.1)");
  // Skips the fd lookup on every io_uring_enter.
  io_uring_register_ring_fd(&ring->ring_);
  if (options.direct_descriptors > 0) {
    ret = io_uring_register_files_sparse(&ring->ring_, options.direct_descriptors);
    if (ret < 0) {
      io_uring_queue_exit(&ring->ring_);
      ring->ring_.ring_fd = -1;
      return ErrnoStatus(ret, absl::StrCat("registering ", options.direct_descriptors,
                                           " direct descriptors (each ring's table is capped by "
                                           "RLIMIT_NOFILE; use more threads)")
                                  .c_str());
    }
  }
  ring->direct_descriptors_ = options.direct_descriptors;
  return ring;
}

Ring::~Ring() {
  if (ring_.ring_fd >= 0) io_uring_queue_exit(&ring_);
}

io_uring_sqe* Ring::GetSqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  while (sqe == nullptr) {
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void Ring::PrepNoDelay(io_uring_sqe* sqe, int fd) {
  io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, nullptr, 0, 0);
  sqe->cmd_op = kSocketUringOpSetsockopt;
  sqe->addr = IPPROTO_TCP | (uint64_t{TCP_NODELAY} << 32);  // level, then optname.
  sqe->file_index = sizeof(kOne);                           // optlen
  sqe->addr3 = reinterpret_cast<uintptr_t>(&kOne);          // optval
}

bool Ring::CanSetSocketOptions() {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return false;
  io_uring_sqe* sqe = GetSqe();
  PrepNoDelay(sqe, fd.get());
  io_uring_sqe_set_data64(sqe, 0);
  io_uring_cqe* cqe = nullptr;
  if (io_uring_submit_and_wait(&ring_, 1) < 0 || io_uring_peek_cqe(&ring_, &cqe) != 0) {
    return false;
  }
  bool ok = cqe->res == 0;
  io_uring_cqe_seen(&ring_, cqe);
  int value = 0;
  socklen_t length = sizeof(value);
  return ok && getsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &value, &length) == 0 && value == 1;
}

void Ring::RecvMultishot(uint32_t slot, uint16_t group, uint64_t user_data) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_recv_multishot(sqe, static_cast<int>(slot), nullptr, 0, 0);
  sqe->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
  sqe->buf_group = group;
  io_uring_sqe_set_data64(sqe, user_data);
}

void Ring::Read(int fd, char* buffer, uint32_t size, uint64_t user_data) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_read(sqe, fd, buffer, size, 0);
  io_uring_sqe_set_data64(sqe, user_data);
}

void Ring::Write(int fd, const char* data, uint32_t size, uint64_t user_data) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_write(sqe, fd, data, size, 0);
  io_uring_sqe_set_data64(sqe, user_data);
}

void Ring::SendAll(uint32_t slot, const char* data, uint32_t size, uint64_t user_data) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_send(sqe, static_cast<int>(slot), data, size, MSG_WAITALL | MSG_NOSIGNAL);
  sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, user_data);
}

void Ring::RecvMsgMultishot(uint32_t slot, const msghdr* msg, uint16_t group, uint64_t user_data) {
  io_uring_sqe* sqe = GetSqe();
  // The kernel only reads the header's lengths; liburing 2.3 takes a non-const pointer.
  io_uring_prep_recvmsg_multishot(sqe, static_cast<int>(slot), const_cast<msghdr*>(msg), 0);
  sqe->flags |= IOSQE_FIXED_FILE | IOSQE_BUFFER_SELECT;
  sqe->buf_group = group;
  io_uring_sqe_set_data64(sqe, user_data);
}

void Ring::SendMsg(uint32_t slot, const msghdr* msg, uint64_t user_data) {
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_sendmsg(sqe, static_cast<int>(slot), msg, MSG_NOSIGNAL);
  sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, user_data);
}

void Ring::CancelThenClose(uint32_t slot, std::span<const uint64_t> pending, uint64_t cancel_data,
                           uint64_t close_data) {
  Reserve(static_cast<unsigned>(pending.size()) + 1);  // One chain, submitted whole.
  for (uint64_t target : pending) {
    io_uring_sqe* sqe = GetSqe();
    io_uring_prep_cancel64(sqe, target, 0);
    sqe->flags |= IOSQE_IO_HARDLINK | IOSQE_CQE_SKIP_SUCCESS;
    io_uring_sqe_set_data64(sqe, cancel_data);
  }
  io_uring_sqe* sqe = GetSqe();
  io_uring_prep_close_direct(sqe, slot);
  io_uring_sqe_set_data64(sqe, close_data);
}

int Ring::InstallFile(uint32_t slot, int fd) {
  int ret = io_uring_register_files_update(&ring_, slot, &fd, 1);
  return ret == 1 ? 0 : (ret < 0 ? ret : -EIO);
}

int Ring::SubmitAndSleep(int64_t sleep_ns) {
  int ret = io_uring_submit(&ring_);
  if (ret < 0) return ret;
  if (sleep_ns > 0) {
    timespec sleep{.tv_sec = sleep_ns / 1'000'000'000, .tv_nsec = sleep_ns % 1'000'000'000};
    nanosleep(&sleep, nullptr);  // A signal ends it early: fine, the caller checks.
  }
  ret = io_uring_get_events(&ring_);
  return ret < 0 ? ret : 0;
}

int Ring::SubmitAndWait(int64_t timeout_ns, unsigned wait_for) {
  // No wait: submit and take what is ready, without arming a timer in the kernel.
  if (timeout_ns == 0) {
    int ret = io_uring_submit_and_get_events(&ring_);
    return ret < 0 ? ret : 0;
  }
  io_uring_cqe* cqe = nullptr;
  if (timeout_ns < 0) {
    int ret = io_uring_submit_and_wait_timeout(&ring_, &cqe, wait_for, nullptr, nullptr);
    return ret > 0 ? 0 : ret;
  }
  __kernel_timespec ts{.tv_sec = timeout_ns / 1'000'000'000, .tv_nsec = timeout_ns % 1'000'000'000};
  int ret = io_uring_submit_and_wait_timeout(&ring_, &cqe, wait_for, &ts, nullptr);
  return ret > 0 ? 0 : ret;
}

}  // namespace uringload::net
