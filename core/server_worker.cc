#include "core/server_worker.h"

#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "core/user_data.h"
#include "net/clock.h"

namespace uringload::core {
namespace {

constexpr uint16_t kBufferGroup = 0;
constexpr int64_t kWaitWithTimersNs = 1'000'000;  // Delays are honoured to ~1 ms.
constexpr int64_t kWaitIdleNs = 100'000'000;      // How fast a stop request is noticed.

}  // namespace

ServerWorker::ServerWorker(const ServePlan* plan, const FixedResponses* fixed, uint32_t index,
                           ServerStats* stats, const std::atomic<bool>* stop)
    : plan_(plan),
      fixed_(fixed),
      stats_(stats),
      stop_(stop),
      rng_(plan->seed * 0x9e3779b97f4a7c15ull + index) {}

absl::Status ServerWorker::Listen() {
  for (const net::SocketAddress& address : plan_->listen) {
    absl::StatusOr<net::UniqueFd> fd = net::OpenListener(address, plan_->backlog);
    if (!fd.ok()) return fd.status();
    listeners_.push_back(*std::move(fd));
  }
  return absl::OkStatus();
}

absl::Status ServerWorker::Setup() {
  uint32_t table = plan_->table_size;
  net::RingOptions options;
  options.sq_entries = 4096;
  options.cq_entries = std::bit_ceil(std::clamp<uint32_t>(2 * table, 1024, 65536));
  options.direct_descriptors = table;
  absl::StatusOr<std::unique_ptr<net::Ring>> ring = net::Ring::Create(options);
  if (!ring.ok()) return ring.status();
  ring_ = *std::move(ring);
  // Accepted connections take free slots anywhere in the table.
  if (int ret = io_uring_register_file_alloc_range(ring_->raw(), 0, table); ret < 0) {
    return absl::UnavailableError(absl::StrCat("file alloc range: ", strerror(-ret)));
  }
  absl::StatusOr<std::unique_ptr<net::ProvidedBufferRing>> buffers =
      net::ProvidedBufferRing::Create(ring_->raw(), kBufferGroup,
                                      net::RecommendedBufferCount(table / 2),
                                      net::kReceiveBufferSize);
  if (!buffers.ok()) return buffers.status();
  buffers_ = *std::move(buffers);
  wheel_ = std::make_unique<net::TimerWheel>(net::MonotonicNanos());
  connections_.resize(table);
  return absl::OkStatus();
}

absl::Status ServerWorker::Run() {
  if (absl::Status s = Setup(); !s.ok()) return s;
  for (uint32_t i = 0; i < listeners_.size(); ++i) ArmAccept(i);
  std::vector<uint32_t> rearm;
  while (!stop_->load(std::memory_order_relaxed)) {
    wheel_->Advance(net::MonotonicNanos(), [this](net::TimerNode* n) { Pump(n->owner); });
    int ret = ring_->SubmitAndWait(wheel_->size() > 0 ? kWaitWithTimersNs : kWaitIdleNs);
    if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
      return absl::InternalError(absl::StrCat("io_uring_enter failed: ", strerror(-ret)));
    }
    ring_->DrainCompletions([&](const io_uring_cqe& cqe) {
      OnCompletion(cqe);
      // A receive that ended without an error (ENOBUFS, CQ overflow) is armed again below.
      if (UserDataOp(cqe.user_data) == Op::kRecv && !(cqe.flags & IORING_CQE_F_MORE)) {
        rearm.push_back(UserDataSlot(cqe.user_data));
      }
    });
    buffers_->Publish();
    for (uint32_t slot : rearm) {
      ServerConnection& c = Conn(slot);
      if (c.in_use && !c.recv_armed) ArmRecv(slot);
    }
    rearm.clear();
  }
  return absl::OkStatus();
}

ServerConnection& ServerWorker::Conn(uint32_t slot) {
  std::unique_ptr<ServerConnection>& c = connections_[slot];
  if (!c) {
    c = std::make_unique<ServerConnection>();
    c->timer.owner = slot;
  }
  return *c;
}

void ServerWorker::ArmAccept(uint32_t listener) {
  io_uring_sqe* sqe = ring_->GetSqe();
  io_uring_prep_multishot_accept_direct(sqe, listeners_[listener].get(), nullptr, nullptr, 0);
  io_uring_sqe_set_data64(sqe, PackUserData(listener, 0, Op::kAccept));
}

void ServerWorker::ArmRecv(uint32_t slot) {
  ServerConnection& c = Conn(slot);
  ring_->RecvMultishot(slot, kBufferGroup, PackUserData(slot, c.generation, Op::kRecv));
  c.recv_armed = true;
}

void ServerWorker::OnCompletion(const io_uring_cqe& cqe) {
  Op op = UserDataOp(cqe.user_data);
  uint32_t slot = UserDataSlot(cqe.user_data);
  if (op == Op::kAccept) {
    OnAccept(slot, cqe);
    return;
  }
  ServerConnection& c = Conn(slot);
  if (!IsCurrent(cqe.user_data, c.generation)) {
    if (cqe.flags & IORING_CQE_F_BUFFER) buffers_->Return(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
    return;
  }
  if (op == Op::kRecv) OnRecv(slot, cqe);
  if (op == Op::kSend) OnSend(slot, cqe.res);
}

void ServerWorker::OnAccept(uint32_t listener, const io_uring_cqe& cqe) {
  if (cqe.res >= 0) {
    uint32_t slot = static_cast<uint32_t>(cqe.res);
    ServerConnection& c = Conn(slot);
    c.parser.Reset();
    c.head = c.count = 0;
    c.in_use = true;
    c.recv_armed = c.send_pending = c.close_after_send = c.stalled = false;
    c.rejected = c.continue_sent = c.continue_due = false;
    stats_->ConnectionAccepted();
    ArmRecv(slot);
  } else if (cqe.res == -ENFILE) {
    stats_->TableFull();
    if (!warned_table_full_) {
      warned_table_full_ = true;
      std::fprintf(stderr,
                   "uringload serve: a worker's descriptor table is full (%u connections); "
                   "further connections are dropped: use more -t/--threads or "
                   "--max-connections\n",
                   plan_->table_size);
    }
  }
  if (!(cqe.flags & IORING_CQE_F_MORE) && !stop_->load(std::memory_order_relaxed)) {
    ArmAccept(listener);
  }
}

void ServerWorker::OnRecv(uint32_t slot, const io_uring_cqe& cqe) {
  ServerConnection& c = Conn(slot);
  if (!(cqe.flags & IORING_CQE_F_MORE)) c.recv_armed = false;
  if (cqe.res > 0) {
    uint16_t id = cqe.flags >> IORING_CQE_BUFFER_SHIFT;
    stats_->BytesReceived(cqe.res);
    OnData(slot, buffers_->Data(id, cqe.res));
    buffers_->Return(id);
  } else if (cqe.res != -ENOBUFS) {
    Close(slot);  // The peer closed or reset: pending responses have nobody to go to.
  }
}

void ServerWorker::OnData(uint32_t slot, std::string_view data) {
  ServerConnection& c = Conn(slot);
  if (c.stalled || c.rejected) return;  // Nothing more is answered on this connection.
  int64_t now = net::MonotonicNanos();
  while (!data.empty() && c.in_use) {
    proto::RequestParser::Result r = c.parser.Feed(data);
    if (r.state == proto::RequestParser::State::kError) {
      Reject(slot, c, now);
      return;
    }
    data.remove_prefix(r.consumed);
    if (r.state == proto::RequestParser::State::kNeedMore) {
      // The client waits for 100 Continue before it sends the body (curl: up to 1 s).
      if (c.parser.expects_continue() && !c.continue_sent) c.continue_sent = c.continue_due = true;
      break;
    }
    c.continue_sent = false;
    if (c.count == ServerConnection::kMaxPipelined) {
      stats_->PipelineOverflow();
      Close(slot);
      return;
    }
    Enqueue(c, now);
  }
  Pump(slot);
}

// A request that cannot be parsed gets 400 (431 for a header block over the limit) after the
// responses queued before it, then the connection closes (RFC 9112 2.2 and 9110 15.5.1).
void ServerWorker::Reject(uint32_t slot, ServerConnection& c, int64_t now) {
  stats_->BadRequest();
  c.rejected = true;
  c.continue_due = false;
  if (c.count == ServerConnection::kMaxPipelined) {
    stats_->PipelineOverflow();
    Close(slot);
    return;
  }
  PendingResponse& p = c.Tail();
  p = PendingResponse{};
  p.ready_at_ns = now;
  p.keep_alive = false;
  p.reject_status =
      c.parser.error_kind() == proto::MessageFeeder::Error::kHeadersTooLarge ? 431 : 400;
  ++c.count;
  Pump(slot);
}

void ServerWorker::Enqueue(ServerConnection& c, int64_t now) {
  stats_->RequestReceived();
  PendingResponse& p = c.Tail();
  p.reject_status = 0;
  p.ready_at_ns = now + plan_->delay.SampleNanos(rng_);
  p.fault = plan_->faults.Draw(rng_);
  p.keep_alive = c.parser.keep_alive();
  std::string_view echo = c.parser.last_segment();
  p.echo_size = static_cast<uint8_t>(echo.size());
  std::copy(echo.begin(), echo.end(), p.echo);
  ++c.count;
}

// Answers the head of the queue if it is due; otherwise sets the timer for it.
void ServerWorker::Pump(uint32_t slot) {
  ServerConnection& c = Conn(slot);
  if (!c.in_use || c.send_pending || c.stalled) return;
  if (c.count == 0) {
    if (c.continue_due) {  // Every earlier response is out: the interim one may go.
      c.continue_due = false;
      Send(slot, c, proto::kContinueResponse, /*then_close=*/false);
    }
    return;
  }
  if (c.Head().ready_at_ns > net::MonotonicNanos()) {
    wheel_->Schedule(&c.timer, c.Head().ready_at_ns);
    return;
  }
  Respond(slot, c);
}

bool ServerWorker::Respond(uint32_t slot, ServerConnection& c) {
  PendingResponse p = c.Head();
  c.Pop();
  if (p.reject_status != 0) {
    Send(slot, c,
         p.reject_status == 431 ? proto::kHeadersTooLargeResponse : proto::kBadRequestResponse,
         /*then_close=*/true);
    return true;
  }
  if (p.fault != Fault::kNone) stats_->FaultInjected(p.fault);
  switch (p.fault) {
    case Fault::kReset:
      Close(slot);
      return false;
    case Fault::kStall:
      c.stalled = true;
      return false;
    case Fault::kMalformed:
      Send(slot, c, proto::kMalformedResponse, /*then_close=*/true);
      return true;
    default:
      break;
  }
  int status = p.fault == Fault::kStatus ? plan_->faults.status_code : 200;
  std::string_view bytes;
  if (plan_->body_mode == ServePlan::BodyMode::kFixed) {
    bool keep = p.keep_alive || p.fault == Fault::kPartial;
    bytes = status == 200 ? (keep ? fixed_->ok_keep_alive : fixed_->ok_close)
                          : (keep ? fixed_->status_keep_alive : fixed_->status_close);
  } else {
    size_t n =
        proto::WriteResponse(c.out, status, p.keep_alive, std::string_view(p.echo, p.echo_size));
    bytes = std::string_view(c.out, n);
  }
  if (p.fault == Fault::kPartial) {
    Send(slot, c, bytes.substr(0, std::max<size_t>(1, bytes.size() / 2)), /*then_close=*/true);
    return true;
  }
  stats_->RequestAnswered();
  Send(slot, c, bytes, /*then_close=*/!p.keep_alive);
  return true;
}

void ServerWorker::Send(uint32_t slot, ServerConnection& c, std::string_view bytes,
                        bool then_close) {
  c.send_data = bytes.data();
  c.send_size = static_cast<uint32_t>(bytes.size());
  c.close_after_send = then_close;
  ring_->SendAll(slot, c.send_data, c.send_size, PackUserData(slot, c.generation, Op::kSend));
  c.send_pending = true;
  stats_->BytesSent(bytes.size());
}

void ServerWorker::OnSend(uint32_t slot, int res) {
  ServerConnection& c = Conn(slot);
  c.send_pending = false;
  // A close after the data keeps it: the kernel sends it, then the FIN.
  if (res < 0 || static_cast<uint32_t>(res) < c.send_size || c.close_after_send) {
    Close(slot);
    return;
  }
  Pump(slot);
}

void ServerWorker::Close(uint32_t slot) {
  ServerConnection& c = Conn(slot);
  if (!c.in_use) return;
  c.in_use = false;
  wheel_->Cancel(&c.timer);
  stats_->ConnectionClosed();
  uint64_t pending[2];
  size_t count = 0;
  if (c.recv_armed) pending[count++] = PackUserData(slot, c.generation, Op::kRecv);
  if (c.send_pending) pending[count++] = PackUserData(slot, c.generation, Op::kSend);
  ++c.generation;
  c.recv_armed = c.send_pending = false;
  ring_->CancelThenClose(slot, std::span(pending, count),
                         PackUserData(slot, c.generation, Op::kCancel),
                         PackUserData(slot, c.generation, Op::kClose));
}

}  // namespace uringload::core
