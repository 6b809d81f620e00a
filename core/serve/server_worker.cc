#include "core/serve/server_worker.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/cpu_pinning.h"
#include "net/base/check.h"
#include "net/base/status_macros.h"
#include "net/tls_errors.h"
#include "net/worker_loop.h"

namespace uringload::core {
namespace {

constexpr int64_t kWaitWithTimersNs = 1'000'000;  // The longest wait while delays run.
constexpr int64_t kWaitIdleNs = 100'000'000;      // How fast a stop request is noticed.

}  // namespace

FixedResponses MakeFixedResponses(const ServePlan& plan) {
  FixedResponses fixed;
  if (plan.body_mode == ServePlan::BodyMode::kFixed) {
    int status = plan.faults.status_code;
    fixed.ok_keep_alive = proto::BuildResponse(200, true, plan.body);
    fixed.ok_close = proto::BuildResponse(200, false, plan.body);
    fixed.status_keep_alive = proto::BuildResponse(status, true, plan.body);
    fixed.status_close = proto::BuildResponse(status, false, plan.body);
  }
  return fixed;
}

ServerWorker::ServerWorker(const ServePlan* plan, const FixedResponses* fixed, uint32_t index,
                           ServerStats* stats, const std::atomic<bool>* stop,
                           std::unique_ptr<net::EventLoop> loop)
    : plan_(plan),
      fixed_(fixed),
      stats_(stats),
      stop_(stop),
      incoming_cpu_(CpuOfWorker(plan->cpus, index)),
      rng_(plan->seed * 0x9e3779b97f4a7c15ull + index),
      service_(plan->service_slots),
      loop_(std::move(loop)) {
  if (plan->request_log != nullptr) log_.emplace(plan->request_log.get());
}

absl::Status ServerWorker::Listen(std::span<const int> shared) {
  for (size_t i = 0; i < plan_->listen.size(); ++i) {
    if (i < shared.size() && shared[i] >= 0) {
      net::UniqueFd copy(fcntl(shared[i], F_DUPFD_CLOEXEC, 0));
      if (copy.get() < 0) return absl::UnavailableError(absl::StrCat("dup: ", strerror(errno)));
      listeners_.push_back(std::move(copy));
      continue;
    }
    const net::SocketAddress& address = plan_->listen[i];
    absl::StatusOr<net::UniqueFd> fd =
        plan_->http3 ? net::OpenDatagramListener(address)
                     : net::OpenListener(address, plan_->backlog, incoming_cpu_);
    if (!fd.ok()) return fd.status();
    listeners_.push_back(*std::move(fd));
  }
  return absl::OkStatus();
}

absl::Status ServerWorker::Setup() {
  uint32_t table = plan_->table_size;
  if (loop_ == nullptr) {
    net::RingEventLoopOptions options{
        .slots = table,
        .sq_entries = 4096,
        .cq_entries = std::bit_ceil(std::clamp<uint32_t>(2 * table, 1024, 65536)),
        .receive_connections = table / 2,
        // --http3: runs of datagrams of up to 64 KiB each; a few per connection wait at once.
        .datagram_buffers = plan_->http3 ? 256u : 0u,
        .accept_into_free_slots = !plan_->http3};
    absl::StatusOr<std::unique_ptr<net::EventLoop>> loop =
        net::MakeWorkerLoop(options, plan_->tls, "");
    if (!loop.ok()) return loop.status();
    loop_ = *std::move(loop);
  }
  connections_.resize(table);
  return absl::OkStatus();
}

absl::Status ServerWorker::Run() {
  URINGLOAD_RETURN_IF_ERROR(Setup());
  if (plan_->http3) {
    StartHttp3Listeners();
  } else {
    for (uint32_t i = 0; i < listeners_.size(); ++i) loop_->Accept(i, listeners_[i].get());
  }
  while (!stop_->load(std::memory_order_relaxed)) {
    loop_->timers().Advance(loop_->Now(), [this](net::TimerNode* n) { OnTimer(n->owner); });
    // Wake for the earliest delay that ends within the next wait, not a tick later.
    int64_t now = loop_->Now();
    int64_t wait =
        loop_->timers().size() > 0
            ? std::max<int64_t>(loop_->timers().EarliestWithin(now, kWaitWithTimersNs) - now, 0)
            : kWaitIdleNs;
    URINGLOAD_RETURN_IF_ERROR(loop_->SubmitAndWait(wait, 1));
    loop_->Drain(*this);
  }
  if (log_.has_value()) log_->Flush();
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

void ServerWorker::OnCompletion(const net::Completion& completion) {
  if (plan_->http3) {
    OnHttp3Completion(completion);
    return;
  }
  URINGLOAD_CHECK(completion.op == net::Op::kAccept || completion.slot < connections_.size(),
                  "slot %u of %zu op %d", completion.slot, connections_.size(),
                  static_cast<int>(completion.op));
  switch (completion.op) {
    case net::Op::kAccept:
      OnAccept(completion);
      break;
    case net::Op::kRecv:
      OnReceive(completion.slot, completion);
      break;
    case net::Op::kSend:
      OnSend(completion.slot, completion.res);
      break;
    case net::Op::kClose:  // The slot is free for the next accept; nothing to do.
      break;
    default:  // The loop keeps socket, connect, cancel completions to itself.
      URINGLOAD_CHECK(false, "slot %u: op %d reached the server", completion.slot,
                      static_cast<int>(completion.op));
  }
}

void ServerWorker::OnAccept(const net::Completion& completion) {
  if (completion.res >= 0) {
    uint32_t slot = static_cast<uint32_t>(completion.res);
    URINGLOAD_CHECK(slot < connections_.size(), "accepted slot %u of %zu", slot,
                    connections_.size());
    ServerConnection& c = Conn(slot);
    URINGLOAD_CHECK(!c.in_use(), "accepted slot %u state %d", slot, static_cast<int>(c.state));
    c.parser.Reset();
    c.head = c.count = 0;
    c.state = ServerConnState::kOpen;
    c.send_pending = c.close_after_send = c.continue_sent = c.continue_due = false;
    stats_->ConnectionAccepted();
    if (completion.tls != nullptr) stats_->TlsHandshake();
    loop_->Receive(slot);
    // --http2: h2c on a plain listener; over TLS what ALPN chose.
    if (plan_->http2 && (completion.tls == nullptr || completion.tls->http2)) {
      StartHttp2(slot, c);
    }
  } else if (completion.res == -ENFILE) {
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
  if (!completion.more && !stop_->load(std::memory_order_relaxed)) {
    loop_->Accept(completion.slot, listeners_[completion.slot].get());
  }
}

void ServerWorker::OnReceive(uint32_t slot, const net::Completion& completion) {
  // Looked up, not made: a receive on a slot never accepted is a broken loop.
  const std::unique_ptr<ServerConnection>& known = connections_[slot];
  URINGLOAD_CHECK(known != nullptr && known->in_use(), "slot %u state %d res %d", slot,
                  known ? static_cast<int>(known->state) : -1, completion.res);
  if (completion.res > 0) {
    stats_->BytesReceived(completion.res);
    OnData(slot, completion.data);
  } else {
    if (completion.res == -net::kTlsNoCloseNotify) stats_->TlsNoCloseNotify();
    Close(slot);  // The peer closed or reset: pending responses have nobody to go to.
  }
}

void ServerWorker::OnData(uint32_t slot, std::string_view data) {
  ServerConnection& c = Conn(slot);
  if (c.state != ServerConnState::kOpen) return;  // Stalled or rejected: nothing more is read.
  if (c.http2) {
    OnHttp2Data(slot, c, data);
    return;
  }
  int64_t now = loop_->Now();
  while (!data.empty() && c.state == ServerConnState::kOpen) {
    proto::RequestParser::Result r = c.parser.Feed(data);
    if (r.state == proto::RequestParser::State::kError) {
      c.logged.clear();
      Reject(slot, c, now);
      return;
    }
    if (log_.has_value()) c.logged.append(data.substr(0, r.consumed));
    data.remove_prefix(r.consumed);
    if (r.state == proto::RequestParser::State::kNeedMore) {
      // The client waits for 100 Continue before it sends the body (curl: up to 1 s).
      if (c.parser.expects_continue() && !c.continue_sent) c.continue_sent = c.continue_due = true;
      break;
    }
    c.continue_sent = false;
    if (log_.has_value()) {
      log_->Add(c.logged);
      c.logged.clear();
    }
    if (c.Full()) {
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
  URINGLOAD_CHECK(c.state == ServerConnState::kOpen, "slot %u state %d", slot,
                  static_cast<int>(c.state));
  c.state = ServerConnState::kRejected;
  c.continue_due = false;
  if (c.Full()) {
    stats_->PipelineOverflow();
    Close(slot);
    return;
  }
  PendingResponse& p = c.Push();
  p = PendingResponse{};
  p.ready_at_ns = now;
  p.keep_alive = false;
  p.reject_status =
      c.parser.error_kind() == proto::MessageFeeder::Error::kHeadersTooLarge ? 431 : 400;
  Pump(slot);
}

void ServerWorker::Enqueue(ServerConnection& c, int64_t now) {
  stats_->RequestReceived();
  PendingResponse& p = c.Push();
  p.reject_status = 0;
  p.ready_at_ns = service_.Admit(now, plan_->delay.SampleNanos(rng_));
  p.fault = plan_->faults.Draw(rng_);
  p.keep_alive = c.parser.keep_alive();
  p.head = c.parser.head();
  std::string_view echo = c.parser.last_segment();
  p.echo_size = static_cast<uint8_t>(echo.size());
  std::copy(echo.begin(), echo.end(), p.echo);
}

// Answers the head of the queue if it is due; otherwise sets the timer for it.
void ServerWorker::Pump(uint32_t slot) {
  ServerConnection& c = Conn(slot);
  if (c.in_use() && c.http2) {
    PumpHttp2(slot, c);
    return;
  }
  if (c.in_use() && c.http3) {
    PumpHttp3(slot, c);
    return;
  }
  if (!c.in_use() || c.send_pending || c.state == ServerConnState::kStalled) return;
  if (c.count == 0) {
    if (c.continue_due) {  // Every earlier response is out: the interim one may go.
      c.continue_due = false;
      Send(slot, c, proto::kContinueResponse, /*then_close=*/false);
    }
    return;
  }
  if (c.Head().ready_at_ns > loop_->Now()) {
    loop_->timers().Schedule(&c.timer, c.Head().ready_at_ns);
    return;
  }
  Respond(slot, c);
}

void ServerWorker::Respond(uint32_t slot, ServerConnection& c) {
  PendingResponse p = c.Head();
  c.Pop();
  if (p.reject_status != 0) {
    Send(slot, c,
         p.reject_status == 431 ? proto::kHeadersTooLargeResponse : proto::kBadRequestResponse,
         /*then_close=*/true);
    return;
  }
  if (p.fault != Fault::kNone) stats_->FaultInjected(p.fault);
  switch (p.fault) {
    case Fault::kReset:
      Close(slot);
      return;
    case Fault::kNoCloseNotify:
      Close(slot, /*notify=*/false);
      return;
    case Fault::kStall:
      c.state = ServerConnState::kStalled;
      return;
    case Fault::kMalformed:
      Send(slot, c, proto::kMalformedResponse, /*then_close=*/true);
      return;
    default:
      break;
  }
  std::string_view bytes = ResponseBytes(c, p);
  if (p.fault == Fault::kPartial) {
    Send(slot, c, bytes.substr(0, std::max<size_t>(1, bytes.size() / 2)), /*then_close=*/true);
    return;
  }
  stats_->RequestAnswered();
  bool then_close = !p.keep_alive;
  if (!then_close && JoinsBurst(c, loop_->Now())) bytes = Burst(c, bytes, then_close);
  Send(slot, c, bytes, then_close);
}

// The whole response to `p` (a 200 or the status fault's code): prebuilt, or written into
// c.out when the body echoes the request; for HEAD, its head alone.
std::string_view ServerWorker::ResponseBytes(ServerConnection& c, const PendingResponse& p) {
  int status = p.fault == Fault::kStatus ? plan_->faults.status_code : 200;
  std::string_view bytes;
  size_t body = 0;
  if (plan_->body_mode == ServePlan::BodyMode::kFixed) {
    bool keep = p.keep_alive || p.fault == Fault::kPartial;
    bytes = status == 200 ? (keep ? fixed_->ok_keep_alive : fixed_->ok_close)
                          : (keep ? fixed_->status_keep_alive : fixed_->status_close);
    body = plan_->body.size();
  } else {
    size_t n =
        proto::WriteResponse(c.out, status, p.keep_alive, std::string_view(p.echo, p.echo_size));
    bytes = std::string_view(c.out, n);
    body = p.echo_size;
  }
  return p.head ? bytes.substr(0, bytes.size() - body) : bytes;
}

// Whether the next queued response can join the send being built: it is due, and it is a
// whole response (no fault but a status code).
bool ServerWorker::JoinsBurst(const ServerConnection& c, int64_t now) const {
  if (c.count == 0) return false;
  const PendingResponse& p = c.Head();
  return p.ready_at_ns <= now && p.reject_status == 0 &&
         (p.fault == Fault::kNone || p.fault == Fault::kStatus);
}

// Pipelined requests answered with one send instead of one each: `first` and every due
// response behind it, copied into the connection's burst buffer while they fit; a response
// with `Connection: close` ends the burst (`then_close`). At -p 16 this is 1 send where it
// was 16, and the client receives one segment where it received 16.
std::string_view ServerWorker::Burst(ServerConnection& c, std::string_view first,
                                     bool& then_close) {
  if (first.size() > ServerConnection::kBurstBytes) return first;
  if (!c.burst) c.burst = std::make_unique<char[]>(ServerConnection::kBurstBytes);
  char* out = c.burst.get();
  std::copy(first.begin(), first.end(), out);  // Before c.out is written again.
  size_t size = first.size();
  int64_t now = loop_->Now();
  while (!then_close && JoinsBurst(c, now)) {
    const PendingResponse& p = c.Head();
    std::string_view bytes = ResponseBytes(c, p);
    if (size + bytes.size() > ServerConnection::kBurstBytes) break;  // The next send has it.
    std::copy(bytes.begin(), bytes.end(), out + size);
    size += bytes.size();
    if (p.fault == Fault::kStatus) stats_->FaultInjected(p.fault);
    stats_->RequestAnswered();
    then_close = !p.keep_alive;
    c.Pop();
  }
  return std::string_view(out, size);
}

void ServerWorker::Send(uint32_t slot, ServerConnection& c, std::string_view bytes,
                        bool then_close) {
  c.send_data = bytes.data();
  c.send_size = static_cast<uint32_t>(bytes.size());
  c.close_after_send = then_close;
  loop_->Send(slot, c.send_data, c.send_size);
  c.send_pending = true;
  stats_->BytesSent(bytes.size());
}

void ServerWorker::OnSend(uint32_t slot, int res) {
  ServerConnection& c = Conn(slot);
  URINGLOAD_CHECK(c.in_use() && c.send_pending && res <= static_cast<int>(c.send_size),
                  "slot %u state %d send %u res %d", slot, static_cast<int>(c.state), c.send_size,
                  res);
  c.send_pending = false;
  // A close after the data keeps it: the kernel sends it, then the FIN.
  if (res < 0 || static_cast<uint32_t>(res) < c.send_size || c.close_after_send) {
    Close(slot);
    return;
  }
  if (c.http2) c.h2->session.Sent(static_cast<uint32_t>(res));
  Pump(slot);
}

void ServerWorker::Close(uint32_t slot, bool notify) {
  ServerConnection& c = Conn(slot);
  if (!c.in_use()) return;
  c.state = ServerConnState::kFree;
  c.send_pending = false;
  c.logged.clear();  // A request cut off by the close is not logged.
  if (c.http2) {     // Its memory goes back while the slot has no connection.
    c.h2->session.Stop();
    c.h2->waiting.clear();
    c.http2 = false;
  }
  loop_->timers().Cancel(&c.timer);
  stats_->ConnectionClosed();
  if (notify) {
    loop_->Close(slot);
  } else {
    loop_->CloseWithoutNotify(slot);
  }
}

}  // namespace uringload::core
