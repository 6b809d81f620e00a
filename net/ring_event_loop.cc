#include "net/ring_event_loop.h"

#include <netinet/udp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"
#include "net/base/status_macros.h"
#include "net/client_socket.h"
#include "net/clock.h"

namespace uringload::net {
namespace {

constexpr uint16_t kBufferGroup = 0;
constexpr uint16_t kDatagramBufferGroup = 1;

}  // namespace

absl::StatusOr<std::unique_ptr<RingEventLoop>> RingEventLoop::Create(
    const RingEventLoopOptions& options) {
  std::unique_ptr<RingEventLoop> loop(new RingEventLoop());
  RingOptions ring_options{.sq_entries = options.sq_entries,
                           .cq_entries = options.cq_entries,
                           .direct_descriptors = options.slots,
                           .flag_waiting_work = options.flag_waiting_work};
  URINGLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Ring> ring, Ring::Create(ring_options));
  loop->ring_ = std::move(ring);
  loop->flag_waiting_work_ = options.flag_waiting_work;
  if (options.accept_into_free_slots) {
    int ret = io_uring_register_file_alloc_range(loop->ring_->raw(), 0, options.slots);
    if (ret < 0) return absl::UnavailableError(absl::StrCat("file alloc range: ", strerror(-ret)));
  }
  absl::StatusOr<std::unique_ptr<ProvidedBufferRing>> buffers =
      absl::UnavailableError("incremental buffers not asked for");
  if (options.incremental_buffers) {
    buffers = ProvidedBufferRing::Create(loop->ring_->raw(), kBufferGroup,
                                         IncrementalReceiveBuffers(options.receive_connections));
  }
  // Before Linux 6.12 the kernel refuses incremental buffers: whole 1 KiB ones then.
  if (!buffers.ok()) {
    buffers = ProvidedBufferRing::Create(loop->ring_->raw(), kBufferGroup,
                                         ClassicReceiveBuffers(options.receive_connections));
  }
  if (!buffers.ok()) return buffers.status();
  loop->buffers_ = *std::move(buffers);
  if (options.datagram_buffers > 0) {
    URINGLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ProvidedBufferRing> datagram_buffers,
                               ProvidedBufferRing::Create(loop->ring_->raw(), kDatagramBufferGroup,
                                                          {.count = options.datagram_buffers,
                                                           .size = kDatagramBufferSize,
                                                           .incremental = false}));
    loop->datagram_buffers_ = std::move(datagram_buffers);
    loop->datagram_receive_.msg_namelen = sizeof(sockaddr_storage);
    loop->datagram_receive_.msg_controllen = CMSG_SPACE(sizeof(int));  // UDP_GRO's size.
    loop->datagram_sends_.resize(options.slots);
  }
  loop->can_set_no_delay_ = loop->ring_->CanSetSocketOptions();
  loop->wheel_ = std::make_unique<TimerWheel>(MonotonicNanos());
  loop->slots_.resize(options.slots);
  loop->rearm_.reserve(options.slots);
  return loop;
}

int64_t RingEventLoop::Now() const { return MonotonicNanos(); }

RingEventLoop::SlotState& RingEventLoop::OpenSlot(uint32_t slot, bool datagram) {
  SlotState& s = slots_[slot];
  URINGLOAD_CHECK(!s.open && !s.connecting, "connect on slot %u open %d connecting %d", slot,
                  s.open, s.connecting);
  s.open = true;
  s.datagram = datagram;
  s.socket_error = 0;
  return s;
}

void RingEventLoop::Connect(uint32_t slot, const SocketAddress& target,
                            const SocketAddress* source) {
  SlotState& s = OpenSlot(slot, /*datagram=*/false);
  if (source != nullptr) {
    // liburing 2.3 cannot bind: a normal socket is bound (IP_BIND_ADDRESS_NO_PORT),
    // installed in the slot and closed, costing a few syscalls per connection, not per request.
    int error = 0;
    UniqueFd fd = OpenBoundClientSocket(*source, &error);
    if (fd.get() >= 0) error = -ring_->InstallFile(slot, fd.get());
    if (error != 0) {
      failed_early_.push_back(MakeCompletion(slot, Op::kConnect, -error));
      return;
    }
  } else {
    ring_->Reserve(2);  // socket -> connect is one linked chain.
    io_uring_sqe* sqe = ring_->GetSqe();
    io_uring_prep_socket_direct(sqe, target.family(), SOCK_STREAM, 0, slot, 0);
    // Only a failure posts a completion; the connect then ends with -ECANCELED.
    sqe->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS;
    io_uring_sqe_set_data64(sqe, Data(slot, Op::kSocket));
  }
  io_uring_sqe* sqe = ring_->GetSqe();
  io_uring_prep_connect(sqe, static_cast<int>(slot), target.get(), target.length);
  sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, Data(slot, Op::kConnect));
  s.connecting = true;
}

// The socket is made outside the ring (UDP_GRO is set before any datagram arrives, which
// the ring could do only from Linux 6.7): a few syscalls per connection, none per request.
void RingEventLoop::ConnectDatagram(uint32_t slot, const SocketAddress& target,
                                    const SocketAddress* source) {
  URINGLOAD_CHECK(datagram_buffers_ != nullptr, "slot %u: the loop has no datagram buffers", slot);
  SlotState& s = OpenSlot(slot, /*datagram=*/true);
  int error = 0;
  UniqueFd fd = OpenDatagramSocket(target.family(), source, &error);
  if (fd.get() >= 0) error = -ring_->InstallFile(slot, fd.get());
  if (error != 0) {
    failed_early_.push_back(MakeCompletion(slot, Op::kConnect, -error));
    return;
  }
  io_uring_sqe* sqe = ring_->GetSqe();
  io_uring_prep_connect(sqe, static_cast<int>(slot), target.get(), target.length);
  sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, Data(slot, Op::kConnect));
  s.connecting = true;
}

void RingEventLoop::ListenDatagram(uint32_t slot, int fd) {
  URINGLOAD_CHECK(datagram_buffers_ != nullptr, "slot %u: the loop has no datagram buffers", slot);
  SlotState& s = slots_[slot];
  URINGLOAD_CHECK(!s.open && !s.connecting, "listen on slot %u open %d connecting %d", slot, s.open,
                  s.connecting);
  s.open = true;
  s.datagram = true;
  s.socket_error = 0;
  int error = -ring_->InstallFile(slot, fd);
  URINGLOAD_CHECK(error == 0, "slot %u: installing the UDP listener: %s", slot, strerror(error));
}

void RingEventLoop::SendDatagrams(uint32_t slot, const char* data, uint32_t size,
                                  uint32_t datagram_size) {
  SlotState& s = slots_[slot];
  URINGLOAD_CHECK(s.open && s.datagram && !s.sending,
                  "datagrams on slot %u open %d udp %d sending %d", slot, s.open, s.datagram,
                  s.sending);
  URINGLOAD_CHECK(size > 0 && size <= kMaxDatagramSendBytes && datagram_size > 0 &&
                      (size + datagram_size - 1) / datagram_size <= kMaxDatagramsPerSend,
                  "slot %u: %u bytes in datagrams of %u", slot, size, datagram_size);
  DatagramSend& d = datagram_sends_[slot];
  d.iov = {.iov_base = const_cast<char*>(data), .iov_len = size};
  d.msg = {};
  d.msg.msg_iov = &d.iov;
  d.msg.msg_iovlen = 1;
  if (datagram_size < size) {  // More than one datagram: the kernel splits them (GSO).
    d.msg.msg_control = d.control;
    d.msg.msg_controllen = sizeof(d.control);
    cmsghdr* cmsg = CMSG_FIRSTHDR(&d.msg);
    cmsg->cmsg_level = SOL_UDP;
    cmsg->cmsg_type = UDP_SEGMENT;
    cmsg->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    uint16_t segment = static_cast<uint16_t>(datagram_size);
    memcpy(CMSG_DATA(cmsg), &segment, sizeof(segment));
  }
  ring_->SendMsg(slot, &d.msg, Data(slot, Op::kSend));
  s.sending = true;
}

void RingEventLoop::SetNoDelay(uint32_t slot) {
  if (!can_set_no_delay_) return;
  io_uring_sqe* sqe = ring_->GetSqe();
  Ring::PrepNoDelay(sqe, static_cast<int>(slot));
  // Only a failure posts a completion, and the connection goes on without it.
  sqe->flags |= IOSQE_FIXED_FILE | IOSQE_CQE_SKIP_SUCCESS;
  io_uring_sqe_set_data64(sqe, Data(slot, Op::kSocketOption));
}

void RingEventLoop::Send(uint32_t slot, const char* data, uint32_t size) {
  // One send at a time per slot: its completion says how much went out.
  URINGLOAD_CHECK(slots_[slot].open && !slots_[slot].sending, "send on slot %u open %d sending %d",
                  slot, slots_[slot].open, slots_[slot].sending);
  ring_->SendAll(slot, data, size, Data(slot, Op::kSend));
  slots_[slot].sending = true;
}

void RingEventLoop::Receive(uint32_t slot) {
  if (slots_[slot].datagram) {
    ring_->RecvMsgMultishot(slot, &datagram_receive_, kDatagramBufferGroup,
                            Data(slot, Op::kRecvDatagram));
  } else {
    ring_->RecvMultishot(slot, kBufferGroup, Data(slot, Op::kRecv));
  }
  slots_[slot].receiving = true;
}

void RingEventLoop::Accept(uint32_t listener, int fd) {
  io_uring_sqe* sqe = ring_->GetSqe();
  io_uring_prep_multishot_accept_direct(sqe, fd, nullptr, nullptr, 0);
  io_uring_sqe_set_data64(sqe, PackUserData(listener, 0, Op::kAccept));
}

void RingEventLoop::Close(uint32_t slot) {
  SlotState& s = slots_[slot];
  uint64_t pending[3];
  size_t count = 0;
  if (s.receiving) pending[count++] = Data(slot, s.datagram ? Op::kRecvDatagram : Op::kRecv);
  if (s.sending) pending[count++] = Data(slot, Op::kSend);
  if (s.connecting) pending[count++] = Data(slot, Op::kConnect);
  ++s.generation;  // Completions of the old incarnation are stale from now on.
  s.open = s.datagram = s.connecting = s.receiving = s.sending = s.rearm_queued = false;
  ring_->CancelThenClose(slot, std::span(pending, count), Data(slot, Op::kCancel),
                         Data(slot, Op::kClose));
}

absl::Status RingEventLoop::SubmitAndWait(int64_t timeout_ns, unsigned wait_for) {
  // Early failures are completions too: do not sleep while one waits.
  if (!failed_early_.empty()) timeout_ns = 0;
  int ret = ring_->SubmitAndWait(timeout_ns, wait_for);
  if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
    return absl::InternalError(absl::StrCat("io_uring_enter failed: ", strerror(-ret)));
  }
  return absl::OkStatus();
}

absl::Status RingEventLoop::SubmitAndSleep(int64_t sleep_ns) {
  if (!failed_early_.empty()) sleep_ns = 0;
  int ret = ring_->SubmitAndSleep(sleep_ns);
  if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
    return absl::InternalError(absl::StrCat("io_uring_enter failed: ", strerror(-ret)));
  }
  return absl::OkStatus();
}

void RingEventLoop::Drain(CompletionHandler& handler) {
  for (size_t i = 0; i < failed_early_.size(); ++i) {
    Completion c = failed_early_[i];  // The handler may queue more.
    handler.OnCompletion(c);
  }
  failed_early_.clear();
  ring_->DrainCompletions([&](const io_uring_cqe& cqe) { OnCqe(cqe, handler); });
  buffers_->Publish();
  if (datagram_buffers_ != nullptr) datagram_buffers_->Publish();
  for (auto [slot, generation] : rearm_) {
    SlotState& s = slots_[slot];
    s.rearm_queued = false;
    if (s.open && s.generation == generation && !s.receiving) Receive(slot);
  }
  rearm_.clear();
}

void RingEventLoop::OnCqe(const io_uring_cqe& cqe, CompletionHandler& handler) {
  Op op = UserDataOp(cqe.user_data);
  uint32_t slot = UserDataSlot(cqe.user_data);
  if (op == Op::kAccept) {
    if (cqe.res >= 0) slots_[cqe.res].open = true;
    handler.OnCompletion(MakeCompletion(slot, op, cqe.res, (cqe.flags & IORING_CQE_F_MORE) != 0));
    return;
  }
  URINGLOAD_CHECK(slot < slots_.size(), "completion for slot %u of %zu op %d", slot, slots_.size(),
                  static_cast<int>(op));
  SlotState& s = slots_[slot];
  if (!IsCurrent(cqe.user_data, s.generation)) {
    DropBuffer(cqe);  // A late completion of a closed incarnation: only its buffer matters.
    return;
  }
  switch (op) {
    case Op::kSocket:  // Posted only on failure; the linked connect reports it.
      s.socket_error = -cqe.res;
      return;
    case Op::kCancel:  // Posted only when there was nothing left to cancel: fine.
    case Op::kAccept:
    case Op::kSocketOption:  // Posted only on failure: the connection goes on without it.
      return;
    case Op::kConnect: {
      s.connecting = false;
      int res = cqe.res == -ECANCELED && s.socket_error != 0 ? -s.socket_error : cqe.res;
      handler.OnCompletion(MakeCompletion(slot, op, res));
      return;
    }
    case Op::kSend:
      s.sending = false;
      handler.OnCompletion(MakeCompletion(slot, op, cqe.res));
      return;
    case Op::kRecv:
    case Op::kRecvDatagram:
      OnReceive(slot, cqe, handler);
      return;
    case Op::kClose:
      handler.OnCompletion(MakeCompletion(slot, op, cqe.res));
      return;
  }
  URINGLOAD_CHECK(false, "slot %u: unknown op %d in user_data %#llx", slot, static_cast<int>(op),
                  static_cast<unsigned long long>(cqe.user_data));
}

// Buffers go back to the ring right after the handler parsed them. A multishot receive that
// ended without an error (buffers exhausted: -ENOBUFS, or a CQ overflow) leaves the data in
// the socket; it is armed again after this batch returned its buffers.
void RingEventLoop::OnReceive(uint32_t slot, const io_uring_cqe& cqe, CompletionHandler& handler) {
  SlotState& s = slots_[slot];
  bool more = cqe.flags & IORING_CQE_F_MORE;
  if (!more) s.receiving = false;
  uint64_t incarnation = cqe.user_data;
  bool datagram = UserDataOp(cqe.user_data) == Op::kRecvDatagram;
  if (cqe.res > 0) {
    uint16_t id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
    ProvidedBufferRing& ring = datagram ? *datagram_buffers_ : *buffers_;
    ProvidedBufferRing::Received r = ring.Take(id, static_cast<uint32_t>(cqe.res), cqe.flags);
    Completion c = datagram ? DatagramCompletion(slot, r.data, more)
                            : MakeCompletion(slot, Op::kRecv, cqe.res, more, r.data);
    c.more_to_read = !datagram && (cqe.flags & IORING_CQE_F_SOCK_NONEMPTY) != 0;
    if (c.res > 0) handler.OnCompletion(c);
    if (r.done) ring.Return(id);
  } else {
    DropBuffer(cqe);
    if (cqe.res != -ENOBUFS) {
      handler.OnCompletion(MakeCompletion(slot, Op::kRecv, cqe.res));
      return;
    }
  }
  QueueRearm(slot, incarnation, more);
}

// A datagram receive's buffer holds an io_uring_recvmsg_out, the control message (UDP_GRO: the
// size of the joined datagrams) and the payload. Nothing to hand over (res 0) for an empty
// datagram (not a closed peer) or a truncated one, which cannot happen with 64 KiB buffers
// and is dropped as a lost packet would be.
Completion RingEventLoop::DatagramCompletion(uint32_t slot, std::string_view buffer, bool more) {
  void* start = const_cast<char*>(buffer.data());
  int size = static_cast<int>(buffer.size());
  io_uring_recvmsg_out* out = io_uring_recvmsg_validate(start, size, &datagram_receive_);
  if (out == nullptr || (out->flags & MSG_TRUNC) != 0) return MakeCompletion(slot, Op::kRecv, 0);
  auto* payload = static_cast<const char*>(io_uring_recvmsg_payload(out, &datagram_receive_));
  uint32_t length = io_uring_recvmsg_payload_length(out, size, &datagram_receive_);
  Completion c = MakeCompletion(slot, Op::kRecv, static_cast<int>(length), more,
                                std::string_view(payload, length));
  c.datagram_size = length;
  if (out->namelen > 0 && out->namelen <= sizeof(sockaddr_storage)) {
    c.peer = static_cast<const sockaddr*>(io_uring_recvmsg_name(out));
    c.peer_length = out->namelen;
  }
  for (cmsghdr* cmsg = io_uring_recvmsg_cmsg_firsthdr(out, &datagram_receive_); cmsg != nullptr;
       cmsg = io_uring_recvmsg_cmsg_nexthdr(out, &datagram_receive_, cmsg)) {
    if (cmsg->cmsg_level == SOL_UDP && cmsg->cmsg_type == UDP_GRO) {
      int joined = 0;
      memcpy(&joined, CMSG_DATA(cmsg), sizeof(joined));
      if (joined > 0) c.datagram_size = static_cast<uint32_t>(joined);
    }
  }
  return c;
}

// A receive the kernel ended without an error is armed again after this batch. The handler
// may have closed the slot, or it may still be receiving.
void RingEventLoop::QueueRearm(uint32_t slot, uint64_t incarnation, bool more) {
  SlotState& s = slots_[slot];
  if (!more && s.open && IsCurrent(incarnation, s.generation) && !s.receiving && !s.rearm_queued) {
    s.rearm_queued = true;
    rearm_.emplace_back(slot, s.generation);
  }
}

// A completion's buffer that nobody reads: taken all the same (an incremental buffer's next
// completion starts behind it), and returned once the kernel is done with it.
void RingEventLoop::DropBuffer(const io_uring_cqe& cqe) {
  if (!(cqe.flags & IORING_CQE_F_BUFFER)) return;
  uint16_t id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
  ProvidedBufferRing& ring =
      UserDataOp(cqe.user_data) == Op::kRecvDatagram ? *datagram_buffers_ : *buffers_;
  if (ring.Take(id, static_cast<uint32_t>(std::max(cqe.res, 0)), cqe.flags).done) {
    ring.Return(id);
  }
}

}  // namespace uringload::net
