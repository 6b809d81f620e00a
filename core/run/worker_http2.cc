// A worker's HTTP/2 connections: the same connection state machine, with requests as streams
// of the connection's Http2ClientSession. Streams end in any order, so the connection's -p
// entries are a pool (in_use) instead of a ring; a stream's tag is its entry. The session's
// frames go out through the same loop's Send, one send in flight at a time, and its received
// bytes come from the same multishot receive.
#include <algorithm>

#include "core/run/worker.h"
#include "net/base/check.h"
#include "net/base/status_macros.h"

namespace uringload::core {
namespace {

// A request the server refused unprocessed goes out again, at most this many times: a server
// that refuses every stream ends each request as a reset instead of keeping it forever.
constexpr uint8_t kMaxRetries = 3;
// A stream's sent_ns between the send that carries its HEADERS and the submit that stamps it.
constexpr int64_t kStampDue = -1;

}  // namespace

// Streams the connection may have open now: -p, capped by the server's
// SETTINGS_MAX_CONCURRENT_STREAMS; none after a GOAWAY, and with --no-keepalive one stream
// per connection.
uint32_t Worker::Capacity(const Connection& c) const {
  if (c.protocol == Protocol::kHttp1) return static_cast<uint32_t>(c.pending.size());
  if (c.protocol == Protocol::kHttp3) {
    const QuicSlot& q = quic_[c.slot];
    if (!config_.plan->keep_alive) return q.streams_opened == 0 ? 1 : 0;
    uint64_t more = q.h3->streams_left();
    return static_cast<uint32_t>(std::min<uint64_t>(c.pending.size(), c.count + more));
  }
  const proto::Http2ClientSession& session = *sessions_[c.slot];
  if (!session.can_open()) return 0;
  if (!config_.plan->keep_alive) return session.streams_opened() == 0 ? 1 : 0;
  return std::min<uint32_t>(static_cast<uint32_t>(c.pending.size()), session.peer_max_streams());
}

// Whether the connection may still open a stream, now or once the server allows more: not
// after a GOAWAY, nor after its one stream with --no-keepalive. A QUIC connection out of stream
// credit waits for the server's MAX_STREAMS.
bool Worker::MayOpenStreams(const Connection& c) const {
  if (c.protocol != Protocol::kHttp3) return Capacity(c) > 0;
  const QuicSlot& q = quic_[c.slot];
  if (!config_.plan->keep_alive) return q.streams_opened == 0;
  return q.h3->ready() && !q.h3->going_away();
}

absl::Status Worker::StartSession(Connection& c) {
  if (sessions_.empty()) {
    sessions_.resize(connections_.size());
    received_ns_.resize(connections_.size());
  }
  if (sessions_[c.slot] == nullptr) {
    sessions_[c.slot] = std::make_unique<proto::Http2ClientSession>(
        c.pending.size(),
        proto::Http2ClientSettings{.window = static_cast<int32_t>(config_.plan->http2_window),
                                   .header_table = config_.plan->http2_header_table},
        &http2_memory_);
    sessions_[c.slot]->SetBodyMatcher(config_.plan->checks.body.get());
    sessions_[c.slot]->SetGrpc(config_.plan->grpc);
    if (flow_ != nullptr) sessions_[c.slot]->SetInspector(&users_[c.slot]);
  }
  URINGLOAD_RETURN_IF_ERROR(sessions_[c.slot]->Start(this));
  c.protocol = Protocol::kHttp2;
  // The requests it was opened for were laid out as HTTP/1.1 (the protocol was not known):
  // they become its first streams.
  uint16_t waiting = c.count;
  c.count = c.submitted = c.stamped = 0;
  c.out_size = 0;
  c.static_out = nullptr;
  for (uint16_t k = 0; k < waiting; ++k) {
    PendingRequest r = c.pending[k];
    AddStream(c, r);
  }
  return absl::OkStatus();
}

// Opens a stream for `request` in a free entry (Capacity said there is one).
void Worker::AddStream(Connection& c, const PendingRequest& request) {
  uint32_t k = 0;
  while (k < c.pending.size() && c.pending[k].in_use) ++k;
  URINGLOAD_CHECK(k < c.pending.size() && c.count < c.pending.size(), "slot %u count %u", c.slot,
                  c.count);
  c.pending[k] = request;
  c.pending[k].in_use = true;
  ++c.count;
  ++c.submitted;
  const proto::RequestTemplate& tmpl = TemplateFor(c, request);
  absl::Status s;
  if (c.protocol == Protocol::kHttp3) {
    s = Http3Of(c).Submit(tmpl, ContextFor(c, request, tmpl), k);
    ++quic_[c.slot].streams_opened;
  } else {
    s = Session(c).Submit(tmpl, ContextFor(c, request, tmpl), k);
  }
  // nghttp2 refuses a stream only when it is out of memory or of stream ids, which
  // can_open() rules out; QUIC one the server does not allow, which Capacity() rules out.
  URINGLOAD_CHECK(s.ok(), "slot %u: %s", c.slot, std::string(s.message()).c_str());
}

// Sends the frames the session has ready, unless a send is in flight (its completion sends the
// rest). Streams opened since the last submit are stamped by the next one. During a drain the
// frames wait for its end: a connection's receives of one drain (over TLS, a record each)
// then go out as one send, where a send per receive halved the requests per TLS record
// and TCP segment (docs/performance.md).
void Worker::FlushStreams(Connection& c) {
  if (c.protocol == Protocol::kHttp3) {
    FlushQuic(c);
    return;
  }
  if (in_drain_) {
    if (!c.flush_queued) {
      c.flush_queued = true;
      queued_flushes_.push_back(c.slot);
    }
    return;
  }
  if (c.send_size != 0) return;
  uint16_t open_before = c.count;
  session_connection_ = &c;  // Serializing may end streams (a GOAWAY came first).
  std::string_view out = Session(c).Output();
  session_connection_ = nullptr;
  if (c.state != ConnState::kActive) return;
  if (c.count != open_before) ScheduleStreamTimeout(c);
  if (Session(c).failed()) {  // Its GOAWAY is ready: the server broke the protocol.
    Fail(c, Outcome::kParseError,
         static_cast<int>(Session(c).failed_in_hpack() ? ParseFailure::kHttp2Compression
                                                       : ParseFailure::kHttp2Protocol));
    return;
  }
  if (out.empty()) return;
  c.send_size = static_cast<uint32_t>(out.size());
  loop_->Send(c.slot, out.data(), c.send_size);
  if (c.submitted == 0) return;
  // The streams opened since the last send go out with this one: the next submit stamps them.
  for (PendingRequest& r : c.pending) {
    if (r.in_use && r.sent_ns == 0) r.sent_ns = kStampDue;
  }
  c.submitted = 0;
  if (c.stamped == 0) {
    c.stamped = 1;
    unstamped_sends_.push_back(c.slot);
  }
}

void Worker::FlushQueuedStreams() {
  for (size_t i = 0; i < queued_flushes_.size(); ++i) {  // A flush may fail one, queueing none.
    Connection& c = connections_[queued_flushes_[i]];
    c.flush_queued = false;
    // It may have ended, or even connected again, since: only an open session has frames.
    if (c.state == ConnState::kActive && c.protocol == Protocol::kHttp2) {
      FlushStreams(c);
    } else if (quic_run_ && (c.state == ConnState::kActive || c.state == ConnState::kConnecting)) {
      FlushQuic(c);
    }
  }
  queued_flushes_.clear();
}

void Worker::StampStreams(Connection& c, int64_t now) {
  for (PendingRequest& r : c.pending) {
    if (r.in_use && r.sent_ns == kStampDue) Stamp(r, now);
  }
  c.stamped = 0;
  if (!c.timer.scheduled()) ScheduleStreamTimeout(c);
}

// After streams ended: new ones in their place, or the connection waits (open model), or it
// closes (no request will come, or it may open no stream any more).
void Worker::RefillStreams(Connection& c) {
  uint32_t capacity = Capacity(c);
  // HTTP/2's cap is the server's SETTINGS; QUIC's stream credit comes back as streams close.
  if (capacity < c.pending.size() && config_.plan->keep_alive && c.protocol == Protocol::kHttp2) {
    stats_->StreamsCapped(capacity);
  }
  PendingRequest request;
  while (c.count < capacity && NextRequest(c, &request)) AddStream(c, request);
  if (c.count == 0 && (!MoreFor(c) || !MayOpenStreams(c))) {
    Close(c);
    return;
  }
  if (c.count < Capacity(c) && pacer_.open()) List(c);
  FlushStreams(c);
}

// Ends the request in entry `k`. The caller moves the connection's timeout after (once for
// all the streams that end together: it looks at every entry).
void Worker::FinishStream(Connection& c, uint32_t k, Outcome outcome, int error, int status,
                          bool body_found, int grpc_status, uint64_t grpc_messages) {
  PendingRequest& r = c.pending[k];
  URINGLOAD_CHECK(r.in_use && c.count > 0 && in_flight_ > 0, "slot %u entry %u count %u", c.slot, k,
                  c.count);
  if (flow_ != nullptr) outcome = JudgeStep(c, outcome, status, grpc_status, &error);
  Record(r, outcome, error, status, body_found, grpc_status, grpc_messages);
  r.in_use = false;
  --c.count;
  if (flow_ != nullptr) AfterStep(c, r, outcome);
}

// The request in entry `k` was not processed: it goes out again (it stays started, once). The
// caller moves the timeout, as for FinishStream.
void Worker::RetryStream(Connection& c, uint32_t k) {
  PendingRequest& r = c.pending[k];
  r.in_use = false;
  --c.count;
  ++r.retries;
  if (flow_ != nullptr) {
    step_retries_[c.slot] = r;
    step_retries_[c.slot].in_use = true;
  } else {
    retry_.push_back(r);
  }
  stats_->RequestRetried();
}

// The connection closed or failed under its streams: each the server may have processed ends
// as a reset with `error`; the others (their HEADERS never left, or a GOAWAY said they were
// not processed) go out again.
void Worker::LoseConnection(Connection& c, int error) {
  for (uint32_t k = 0; k < c.pending.size() && c.count > 0; ++k) {
    if (!c.pending[k].in_use) continue;
    if (!Session(c).MayHaveProcessed(k) && c.pending[k].retries < kMaxRetries) {
      RetryStream(c, k);
    } else {
      FinishStream(c, k, Outcome::kReset, error, 0);
    }
  }
  Close(c);
}

// The timeout runs from the send of the oldest stream in flight.
void Worker::ScheduleStreamTimeout(Connection& c) {
  int64_t oldest = 0;
  for (const PendingRequest& r : c.pending) {
    if (r.in_use && r.sent_ns > 0 && (oldest == 0 || r.sent_ns < oldest)) oldest = r.sent_ns;
  }
  if (oldest == 0) {
    loop_->timers().Cancel(&c.timer);
  } else {
    loop_->timers().Schedule(&c.timer, oldest + timeout_ns_);
  }
}

// Streams past their timeout end as timeouts. When the connection received anything since the
// oldest of them was sent, it lives on without them (RST_STREAM CANCEL tells the server);
// otherwise it is dead, and it fails as an HTTP/1.1 connection does.
void Worker::TimeOutStreams(Connection& c, int64_t now) {
  auto expired = [&](const PendingRequest& r) {
    return r.in_use && r.sent_ns > 0 && r.sent_ns + timeout_ns_ <= now;
  };
  int64_t oldest = 0;
  for (const PendingRequest& r : c.pending) {
    if (expired(r) && (oldest == 0 || r.sent_ns < oldest)) oldest = r.sent_ns;
  }
  if (oldest == 0) {
    ScheduleStreamTimeout(c);
    return;
  }
  if (received_ns_[c.slot] <= oldest) {  // Received before that send (post-wait clock vs stamp).
    Fail(c, Outcome::kTimeout, 0);
    return;
  }
  for (uint32_t k = 0; k < c.pending.size(); ++k) {
    if (expired(c.pending[k])) {
      if (c.protocol == Protocol::kHttp3) {
        Http3Of(c).Cancel(k);
      } else {
        Session(c).Cancel(k);
      }
      FinishStream(c, k, Outcome::kTimeout, 0, 0);
    }
  }
  ScheduleStreamTimeout(c);
  RefillStreams(c);
}

void Worker::OnStreamsSent(Connection& c, uint32_t bytes) {
  Session(c).Sent(bytes);
  c.send_size = 0;
  FlushStreams(c);
}

// Received bytes end streams (OnStreamEnd) as the session decodes them.
void Worker::OnStreamData(Connection& c, std::string_view data) {
  uint32_t before = responses_parsed_;
  uint16_t open_before = c.count;
  received_ns_[c.slot] = completions_at_ns_;
  session_connection_ = &c;
  absl::Status s = Session(c).Receive(data);
  session_connection_ = nullptr;
  if (c.state != ConnState::kActive) return;
  if (!s.ok()) {  // nghttp2 ran out of memory.
    Fail(c, Outcome::kReset, ENOMEM);
    return;
  }
  if (c.count != open_before) ScheduleStreamTimeout(c);  // Streams ended (no stream opens here).
  if (responses_parsed_ != before && !config_.plan->keep_alive && c.count == 0) {
    Close(c);
    return;
  }
  RefillStreams(c);
}

// A gRPC call's first message: its latency, measured as the call's own (Record).
void Worker::OnGrpcFirstMessage(uint32_t tag) {
  const PendingRequest& r = session_connection_->pending[tag];
  if (r.warmup) return;
  stats_->GrpcFirstMessage(completions_at_ns_ - (pacer_.open() ? r.intended_ns : r.sent_ns));
}

void Worker::OnStreamEnd(const proto::Http2StreamEnd& end) {
  Connection& c = *session_connection_;
  if (end.complete && end.grpc && (end.grpc_status < 0 || end.grpc_malformed)) {
    ++responses_parsed_;  // A response, but no gRPC call's end.
    ParseFailure why =
        end.grpc_malformed ? ParseFailure::kGrpcMalformed : ParseFailure::kGrpcNoStatus;
    FinishStream(c, end.tag, Outcome::kParseError, static_cast<int>(why), end.status);
  } else if (end.complete) {
    ++responses_parsed_;
    FinishStream(c, end.tag, Outcome::kOk, 0, end.status, end.body_found, end.grpc_status,
                 end.grpc_messages);
  } else if (end.malformed) {
    FinishStream(c, end.tag, Outcome::kParseError, static_cast<int>(ParseFailure::kHttp2Malformed),
                 0);
  } else if (end.unprocessed && c.pending[end.tag].retries < kMaxRetries) {
    RetryStream(c, end.tag);
  } else if (end.error_code != 0) {
    FinishStream(c, end.tag, Outcome::kReset, Http2Cause(end.error_code), 0);
  } else {
    FinishStream(c, end.tag, Outcome::kParseError, static_cast<int>(ParseFailure::kHttp2Incomplete),
                 0);
  }
}

}  // namespace uringload::core
