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
#include "core/serve/server_http1_driver.h"
#include "core/serve/server_http2_driver.h"
#include "core/serve/server_http3_driver.h"
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
    URINGLOAD_ASSIGN_OR_RETURN(
        net::UniqueFd fd, plan_->http3 ? net::OpenDatagramListener(address)
                                       : net::OpenListener(address, plan_->backlog, incoming_cpu_));
    listeners_.push_back(std::move(fd));
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
    URINGLOAD_ASSIGN_OR_RETURN(std::unique_ptr<net::EventLoop> loop,
                               net::MakeWorkerLoop(options, plan_->tls, {}));
    loop_ = std::move(loop);
  }
  connections_.resize(table);
  ServerEnv env{.plan = plan_,
                .fixed = fixed_,
                .stats = stats_,
                .loop = loop_.get(),
                .log = log_.has_value() ? &*log_ : nullptr};
  ServerHost* host = this;
  if (plan_->http3) {
    http3_ = std::make_unique<ServerHttp3Driver>(host, env, table);
  } else {
    http1_ = std::make_unique<ServerHttp1Driver>(host, env);
    if (plan_->http2) http2_ = std::make_unique<ServerHttp2Driver>(host, env, table);
  }
  return absl::OkStatus();
}

absl::Status ServerWorker::Run() {
  URINGLOAD_RETURN_IF_ERROR(Setup());
  if (http3_ != nullptr) {
    http3_->Listen(listeners_);
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
  if (http3_ != nullptr) {  // Every slot's: the listeners' and the clients' UDP sockets.
    http3_->OnCompletion(completion);
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
    c.state = ServerConnState::kOpen;
    c.send_pending = c.close_after_send = false;
    stats_->ConnectionAccepted();
    if (completion.tls != nullptr) stats_->TlsHandshake();
    loop_->Receive(slot);
    // --http2: h2c on a plain listener; over TLS what ALPN chose.
    bool http2 = http2_ != nullptr && (completion.tls == nullptr || completion.tls->http2);
    c.driver = http2 ? http2_.get() : http1_.get();
    c.driver->Open(slot, c);
  } else if (completion.res == -ENFILE) {
    TableFull("use more -t/--threads or --max-connections");
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
    known->driver->OnData(slot, *known, completion.data);
  } else {
    if (completion.res == -net::kTlsNoCloseNotify) stats_->TlsNoCloseNotify();
    Close(slot);  // The peer closed or reset: pending responses have nobody to go to.
  }
}

void ServerWorker::OnTimer(uint32_t owner) {
  if ((owner & kServerTransportTimer) != 0) {
    http3_->OnTransportTimer(owner & ~kServerTransportTimer);
    return;
  }
  ServerConnection& c = Conn(owner);
  if (c.in_use()) c.driver->Pump(owner, c);
}

AnswerDraw ServerWorker::Draw(int64_t now) {
  int64_t ready_at_ns = service_.Admit(now, plan_->delay.SampleNanos(rng_));
  return {.ready_at_ns = ready_at_ns, .fault = plan_->faults.Draw(rng_)};
}

void ServerWorker::TableFull(std::string_view advice) {
  stats_->TableFull();
  if (warned_table_full_) return;
  warned_table_full_ = true;
  std::fprintf(stderr,
               "uringload serve: a worker's descriptor table is full (%u connections); further "
               "connections are dropped: %.*s\n",
               plan_->table_size, static_cast<int>(advice.size()), advice.data());
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
  c.driver->OnSent(slot, c, static_cast<uint32_t>(res));
  c.driver->Pump(slot, c);
}

void ServerWorker::Close(uint32_t slot, bool notify) {
  ServerConnection& c = Conn(slot);
  if (!c.in_use()) return;
  c.state = ServerConnState::kFree;
  c.send_pending = false;
  c.logged.clear();  // A request cut off by the close is not logged.
  c.driver->Release(slot, c);
  loop_->timers().Cancel(&c.timer);
  stats_->ConnectionClosed();
  if (notify) {
    loop_->Close(slot);
  } else {
    loop_->CloseWithoutNotify(slot);
  }
}

}  // namespace uringload::core
