#include "core/serve/server_http1_driver.h"

#include <algorithm>
#include <memory>

#include "net/base/check.h"

namespace uringload::core {

void ServerHttp1Driver::Open(uint32_t /*slot*/, ServerConnection& c) {
  c.parser.Reset();
  c.head = c.count = 0;
  c.continue_sent = c.continue_due = false;
}

void ServerHttp1Driver::OnData(uint32_t slot, ServerConnection& c, std::string_view data) {
  if (c.state != ServerConnState::kOpen) return;  // Stalled or rejected: nothing more is read.
  int64_t now = env_.loop->Now();
  while (!data.empty() && c.state == ServerConnState::kOpen) {
    proto::RequestParser::Result r = c.parser.Feed(data);
    if (r.state == proto::RequestParser::State::kError) {
      c.logged.clear();
      Reject(slot, c, now);
      return;
    }
    if (env_.log != nullptr) c.logged.append(data.substr(0, r.consumed));
    data.remove_prefix(r.consumed);
    if (r.state == proto::RequestParser::State::kNeedMore) {
      // The client waits for 100 Continue before it sends the body (curl: up to 1 s).
      if (c.parser.expects_continue() && !c.continue_sent) c.continue_sent = c.continue_due = true;
      break;
    }
    c.continue_sent = false;
    if (env_.log != nullptr) {
      env_.log->Add(c.logged);
      c.logged.clear();
    }
    if (c.Full()) {
      env_.stats->PipelineOverflow();
      host_->Close(slot);
      return;
    }
    Enqueue(c, now);
  }
  Pump(slot, c);
}

// A request that cannot be parsed gets 400 (431 for a header block over the limit) after the
// responses queued before it, then the connection closes (RFC 9112 2.2 and 9110 15.5.1).
void ServerHttp1Driver::Reject(uint32_t slot, ServerConnection& c, int64_t now) {
  env_.stats->BadRequest();
  URINGLOAD_CHECK(c.state == ServerConnState::kOpen, "slot %u state %d", slot,
                  static_cast<int>(c.state));
  c.state = ServerConnState::kRejected;
  c.continue_due = false;
  if (c.Full()) {
    env_.stats->PipelineOverflow();
    host_->Close(slot);
    return;
  }
  PendingResponse& p = c.Push();
  p = PendingResponse{};
  p.ready_at_ns = now;
  p.keep_alive = false;
  p.reject_status =
      c.parser.error_kind() == proto::MessageFeeder::Error::kHeadersTooLarge ? 431 : 400;
  Pump(slot, c);
}

void ServerHttp1Driver::Enqueue(ServerConnection& c, int64_t now) {
  env_.stats->RequestReceived();
  PendingResponse& p = c.Push();
  p.reject_status = 0;
  AnswerDraw draw = host_->Draw(now);
  p.ready_at_ns = draw.ready_at_ns;
  p.fault = draw.fault;
  p.keep_alive = c.parser.keep_alive();
  p.head = c.parser.head();
  std::string_view echo = c.parser.last_segment();
  p.echo_size = static_cast<uint8_t>(echo.size());
  std::copy(echo.begin(), echo.end(), p.echo);
}

// Answers the head of the queue if it is due; otherwise sets the timer for it.
void ServerHttp1Driver::Pump(uint32_t slot, ServerConnection& c) {
  if (!c.in_use() || c.send_pending || c.state == ServerConnState::kStalled) return;
  if (c.count == 0) {
    if (c.continue_due) {  // Every earlier response is out: the interim one may go.
      c.continue_due = false;
      host_->Send(slot, c, proto::kContinueResponse, /*then_close=*/false);
    }
    return;
  }
  if (c.Head().ready_at_ns > env_.loop->Now()) {
    env_.loop->timers().Schedule(&c.timer, c.Head().ready_at_ns);
    return;
  }
  Respond(slot, c);
}

void ServerHttp1Driver::Respond(uint32_t slot, ServerConnection& c) {
  PendingResponse p = c.Head();
  c.Pop();
  if (p.reject_status != 0) {
    host_->Send(
        slot, c,
        p.reject_status == 431 ? proto::kHeadersTooLargeResponse : proto::kBadRequestResponse,
        /*then_close=*/true);
    return;
  }
  if (p.fault != Fault::kNone) env_.stats->FaultInjected(p.fault);
  switch (p.fault) {
    case Fault::kReset:
      host_->Close(slot);
      return;
    case Fault::kNoCloseNotify:
      host_->Close(slot, /*notify=*/false);
      return;
    case Fault::kStall:
      c.state = ServerConnState::kStalled;
      return;
    case Fault::kMalformed:
      host_->Send(slot, c, proto::kMalformedResponse, /*then_close=*/true);
      return;
    default:
      break;
  }
  std::string_view bytes = ResponseBytes(c, p);
  if (p.fault == Fault::kPartial) {
    host_->Send(slot, c, bytes.substr(0, std::max<size_t>(1, bytes.size() / 2)),
                /*then_close=*/true);
    return;
  }
  env_.stats->RequestAnswered();
  bool then_close = !p.keep_alive;
  if (!then_close && JoinsBurst(c, env_.loop->Now())) bytes = Burst(c, bytes, then_close);
  host_->Send(slot, c, bytes, then_close);
}

// The whole response to `p` (a 200 or the status fault's code): prebuilt, or written into
// c.out when the body echoes the request; for HEAD, its head alone.
std::string_view ServerHttp1Driver::ResponseBytes(ServerConnection& c, const PendingResponse& p) {
  int status = p.fault == Fault::kStatus ? env_.plan->faults.status_code : 200;
  std::string_view bytes;
  size_t body = 0;
  if (env_.plan->body_mode == ServePlan::BodyMode::kFixed) {
    bool keep = p.keep_alive || p.fault == Fault::kPartial;
    bytes = status == 200 ? (keep ? env_.fixed->ok_keep_alive : env_.fixed->ok_close)
                          : (keep ? env_.fixed->status_keep_alive : env_.fixed->status_close);
    body = env_.plan->body.size();
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
bool ServerHttp1Driver::JoinsBurst(const ServerConnection& c, int64_t now) const {
  if (c.count == 0) return false;
  const PendingResponse& p = c.Head();
  return p.ready_at_ns <= now && p.reject_status == 0 &&
         (p.fault == Fault::kNone || p.fault == Fault::kStatus);
}

// Pipelined requests answered with one send instead of one each: `first` and every due
// response behind it, copied into the connection's burst buffer while they fit; a response
// with `Connection: close` ends the burst (`then_close`). At -p 16 this is 1 send where it
// was 16, and the client receives one segment where it received 16.
std::string_view ServerHttp1Driver::Burst(ServerConnection& c, std::string_view first,
                                          bool& then_close) {
  if (first.size() > ServerConnection::kBurstBytes) return first;
  if (!c.burst) c.burst = std::make_unique<char[]>(ServerConnection::kBurstBytes);
  char* out = c.burst.get();
  std::copy(first.begin(), first.end(), out);  // Before c.out is written again.
  size_t size = first.size();
  int64_t now = env_.loop->Now();
  while (!then_close && JoinsBurst(c, now)) {
    const PendingResponse& p = c.Head();
    std::string_view bytes = ResponseBytes(c, p);
    if (size + bytes.size() > ServerConnection::kBurstBytes) break;  // The next send has it.
    std::copy(bytes.begin(), bytes.end(), out + size);
    size += bytes.size();
    if (p.fault == Fault::kStatus) env_.stats->FaultInjected(p.fault);
    env_.stats->RequestAnswered();
    then_close = !p.keep_alive;
    c.Pop();
  }
  return std::string_view(out, size);
}

}  // namespace uringload::core
