#include "core/serve/server_http2_driver.h"

#include <algorithm>
#include <limits>

#include "net/base/check.h"

namespace uringload::core {
namespace {

// How long a connection that sent a malformed frame waits for the client to close it.
constexpr int64_t kMalformedCloseWaitNs = 1'000'000'000;

}  // namespace

ServerHttp2Driver::ServerHttp2Driver(ServerHost* host, const ServerEnv& env, uint32_t slots)
    : host_(host), env_(env), slots_(slots) {}

void ServerHttp2Driver::Open(uint32_t slot, ServerConnection& c) {
  if (!slots_[slot]) slots_[slot] = std::make_unique<Slot>(this, slot, &memory_);
  Slot& s = *slots_[slot];
  s.waiting.clear();
  s.requests = 0;
  s.goaway_last_stream = 0;
  s.closing = s.malformed_due = false;
  s.close_notify = true;
  s.malformed_close_at_ns = 0;
  const ServePlan& plan = *env_.plan;
  absl::Status started = s.session.Start(&s, {.max_streams = plan.http2_max_streams,
                                              .window = plan.http2_window,
                                              .keep_text = env_.log != nullptr,
                                              .keep_body = plan.grpc_echo});
  if (!started.ok()) {  // nghttp2 fails only when out of memory.
    host_->Close(slot);
    return;
  }
  Flush(slot, c);  // The server's SETTINGS.
}

void ServerHttp2Driver::OnData(uint32_t slot, ServerConnection& c, std::string_view data) {
  if (c.state != ServerConnState::kOpen) return;
  if (!slots_[slot]->session.Receive(data).ok()) {
    host_->Close(slot);
    return;
  }
  Pump(slot, c);
}

void ServerHttp2Driver::OnRequest(Slot& s, const proto::Http2ServerSession::Request& request) {
  // Above the GOAWAY it sent: not processed (the client sends it again elsewhere).
  if (s.goaway_last_stream != 0 && request.stream_id > s.goaway_last_stream) return;
  env_.stats->RequestReceived();
  if (env_.log != nullptr) env_.log->Add(request.text);
  Response& r = s.waiting.emplace_back();
  AnswerDraw draw = host_->Draw(env_.loop->Now());
  r.stream_id = request.stream_id;
  r.ready_at_ns = draw.ready_at_ns;
  r.fault = draw.fault;
  r.echo_size = static_cast<uint8_t>(request.echo.size());
  std::copy(request.echo.begin(), request.echo.end(), r.echo);
  if (env_.plan->http2_goaway_after != 0 && ++s.requests == env_.plan->http2_goaway_after) {
    s.goaway_last_stream = request.stream_id;
    s.session.GoAway();
  }
}

// Answers every stream whose delay has ended, sets the timer for the next one, sends.
void ServerHttp2Driver::Pump(uint32_t slot, ServerConnection& c) {
  Slot& s = *slots_[slot];
  if (s.closing) {
    Flush(slot, c);
    return;
  }
  int64_t next = AnswerDue(s.waiting, env_.loop->Now(), [&](const Response& r) {
    Answer(s, r);
    return !s.closing;
  });
  if (next != std::numeric_limits<int64_t>::max()) env_.loop->timers().Schedule(&c.timer, next);
  Flush(slot, c);
}

void ServerHttp2Driver::Answer(Slot& s, const Response& r) {
  const ServePlan& plan = *env_.plan;
  if (r.fault != Fault::kNone) env_.stats->FaultInjected(r.fault);
  proto::Http2ServerSession& session = s.session;
  std::string_view body = plan.body_mode == ServePlan::BodyMode::kFixed
                              ? std::string_view(plan.body)
                              : std::string_view(r.echo, r.echo_size);
  switch (r.fault) {
    case Fault::kReset:
      s.closing = true;
      return;
    case Fault::kNoCloseNotify:
      s.closing = true;
      s.close_notify = false;
      return;
    case Fault::kMalformed:  // Sent last, after every answer already queued.
      s.closing = true;
      s.malformed_due = true;
      return;
    case Fault::kStall:  // The stream stays open, never answered; the others go on.
      return;
    case Fault::kRstStream:
      session.Reset(r.stream_id, NGHTTP2_INTERNAL_ERROR);
      return;
    case Fault::kPartial:
      if (plan.grpc) {
        session.RespondGrpc(r.stream_id, 0, /*partial=*/true, plan.grpc_echo);
      } else {
        session.Respond(r.stream_id, 200, body, /*partial=*/true);
      }
      return;
    default:
      break;
  }
  if (plan.grpc) {
    session.RespondGrpc(r.stream_id, r.fault == Fault::kStatus ? plan.faults.status_code : 0,
                        /*partial=*/false, plan.grpc_echo);
  } else {
    int status = r.fault == Fault::kStatus ? plan.faults.status_code : 200;
    session.Respond(r.stream_id, status, body);
  }
  env_.stats->RequestAnswered();
}

void ServerHttp2Driver::Flush(uint32_t slot, ServerConnection& c) {
  if (c.send_pending) return;
  Slot& s = *slots_[slot];
  std::string_view out = s.session.Output();
  if (!out.empty()) {
    host_->Send(slot, c, out, /*then_close=*/false);
  } else if (s.malformed_due) {
    s.malformed_due = false;
    s.malformed_close_at_ns = env_.loop->Now() + kMalformedCloseWaitNs;
    env_.loop->timers().Schedule(&c.timer, s.malformed_close_at_ns);
    s.session.InjectMalformedFrame();
    Flush(slot, c);
  } else if (s.closing && env_.loop->Now() < s.malformed_close_at_ns) {
    return;  // The client closes; the timer closes a client that does not.
  } else if (s.closing) {
    host_->Close(slot, s.close_notify);
  } else if (s.session.finished()) {
    host_->Close(slot);
  }
}

void ServerHttp2Driver::OnSent(uint32_t slot, ServerConnection& /*c*/, uint32_t bytes) {
  slots_[slot]->session.Sent(bytes);
}

void ServerHttp2Driver::Release(uint32_t slot, ServerConnection& /*c*/) {
  Slot& s = *slots_[slot];
  s.session.Stop();  // Its memory goes back while the slot has no connection.
  s.waiting.clear();
}

}  // namespace uringload::core
