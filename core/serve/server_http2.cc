// serve's HTTP/2 connections (--http2): the same worker, ring and timer wheel; each request
// is a stream of the connection's Http2ServerSession, gets its delay and fault on arrival, and
// is answered when its delay ends, in whatever order that makes. Frames go out through the
// connection's one send at a time, as HTTP/1.1 bursts do.
#include <algorithm>
#include <limits>

#include "core/serve/server_worker.h"
#include "net/base/check.h"

namespace uringload::core {

// How long a connection that sent a malformed frame waits for the client to close it.
constexpr int64_t kMalformedCloseWaitNs = 1'000'000'000;

void ServerWorker::StartHttp2(uint32_t slot, ServerConnection& c) {
  if (!c.h2) c.h2 = std::make_unique<ServerHttp2>(&http2_memory_);
  c.h2->waiting.clear();
  c.h2->requests = 0;
  c.h2->goaway_last_stream = 0;
  c.h2->closing = c.h2->malformed_due = false;
  c.h2->close_notify = true;
  c.h2->malformed_close_at_ns = 0;
  absl::Status s = c.h2->session.Start(this, {.max_streams = plan_->http2_max_streams,
                                              .window = plan_->http2_window,
                                              .keep_text = log_.has_value(),
                                              .keep_body = plan_->grpc_echo});
  if (!s.ok()) {  // nghttp2 fails only when out of memory.
    Close(slot);
    return;
  }
  c.http2 = true;
  FlushHttp2(slot, c);  // The server's SETTINGS.
}

void ServerWorker::OnHttp2Data(uint32_t slot, ServerConnection& c, std::string_view data) {
  session_slot_ = slot;
  absl::Status s = c.h2->session.Receive(data);
  if (!s.ok()) {
    Close(slot);
    return;
  }
  PumpHttp2(slot, c);
}

void ServerWorker::OnRequest(const proto::Http2ServerSession::Request& request) {
  ServerConnection& c = Conn(session_slot_);
  ServerHttp2& h2 = *c.h2;
  // Above the GOAWAY it sent: not processed (the client sends it again elsewhere).
  if (h2.goaway_last_stream != 0 && request.stream_id > h2.goaway_last_stream) return;
  stats_->RequestReceived();
  if (log_.has_value()) log_->Add(request.text);
  Http2Response& r = h2.waiting.emplace_back();
  r.stream_id = request.stream_id;
  r.ready_at_ns = service_.Admit(loop_->Now(), plan_->delay.SampleNanos(rng_));
  r.fault = plan_->faults.Draw(rng_);
  r.echo_size = static_cast<uint8_t>(request.echo.size());
  std::copy(request.echo.begin(), request.echo.end(), r.echo);
  if (plan_->http2_goaway_after != 0 && ++h2.requests == plan_->http2_goaway_after) {
    h2.goaway_last_stream = request.stream_id;
    h2.session.GoAway();
  }
}

// Answers every stream whose delay has ended, sets the timer for the next one, sends.
void ServerWorker::PumpHttp2(uint32_t slot, ServerConnection& c) {
  if (c.h2->closing) {
    FlushHttp2(slot, c);
    return;
  }
  int64_t next = AnswerDue(c.h2->waiting, loop_->Now(), [&](const Http2Response& r) {
    AnswerStream(c, r);
    return !c.h2->closing;
  });
  if (next != std::numeric_limits<int64_t>::max()) loop_->timers().Schedule(&c.timer, next);
  FlushHttp2(slot, c);
}

// One stream's answer, or its fault (a connection fault sets it closing).
void ServerWorker::AnswerStream(ServerConnection& c, const Http2Response& r) {
  if (r.fault != Fault::kNone) stats_->FaultInjected(r.fault);
  proto::Http2ServerSession& session = c.h2->session;
  std::string_view body = plan_->body_mode == ServePlan::BodyMode::kFixed
                              ? std::string_view(plan_->body)
                              : std::string_view(r.echo, r.echo_size);
  switch (r.fault) {
    case Fault::kReset:
      c.h2->closing = true;
      return;
    case Fault::kNoCloseNotify:
      c.h2->closing = true;
      c.h2->close_notify = false;
      return;
    case Fault::kMalformed:  // Sent last, after every answer already queued.
      c.h2->closing = true;
      c.h2->malformed_due = true;
      return;
    case Fault::kStall:  // The stream stays open, never answered; the others go on.
      return;
    case Fault::kRstStream:
      session.Reset(r.stream_id, NGHTTP2_INTERNAL_ERROR);
      return;
    case Fault::kPartial:
      if (plan_->grpc) {
        session.RespondGrpc(r.stream_id, 0, /*partial=*/true, plan_->grpc_echo);
      } else {
        session.Respond(r.stream_id, 200, body, /*partial=*/true);
      }
      return;
    default:
      break;
  }
  if (plan_->grpc) {
    session.RespondGrpc(r.stream_id, r.fault == Fault::kStatus ? plan_->faults.status_code : 0,
                        /*partial=*/false, plan_->grpc_echo);
  } else {
    int status = r.fault == Fault::kStatus ? plan_->faults.status_code : 200;
    session.Respond(r.stream_id, status, body);
  }
  stats_->RequestAnswered();
}

// Sends what the session has ready, unless a send is in flight (its completion pumps again);
// closes a connection the session is done with, or a closing one once all has gone out.
void ServerWorker::FlushHttp2(uint32_t slot, ServerConnection& c) {
  if (c.send_pending) return;
  std::string_view out = c.h2->session.Output();
  if (!out.empty()) {
    Send(slot, c, out, /*then_close=*/false);
  } else if (c.h2->malformed_due) {
    c.h2->malformed_due = false;
    c.h2->malformed_close_at_ns = loop_->Now() + kMalformedCloseWaitNs;
    loop_->timers().Schedule(&c.timer, c.h2->malformed_close_at_ns);
    c.h2->session.InjectMalformedFrame();
    FlushHttp2(slot, c);
  } else if (c.h2->closing && loop_->Now() < c.h2->malformed_close_at_ns) {
    return;  // The client closes; the timer closes a client that does not.
  } else if (c.h2->closing) {
    Close(slot, c.h2->close_notify);
  } else if (c.h2->session.finished()) {
    Close(slot);
  }
}

}  // namespace uringload::core
