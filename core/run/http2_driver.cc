#include "core/run/http2_driver.h"

#include <algorithm>
#include <cerrno>
#include <string>

#include "net/base/check.h"

namespace uringload::core {
namespace {

// A request the server refused unprocessed goes out again, at most this many times: a server
// that refuses every stream ends each request as a reset instead of keeping it forever.
constexpr StreamRules kHttp2Rules{
    .malformed = ParseFailure::kHttp2Malformed,
    .incomplete = ParseFailure::kHttp2Incomplete,
    .max_retries = 3,
    .reset_cause = [](uint64_t code) { return Http2Cause(static_cast<uint32_t>(code)); }};

}  // namespace

Http2Driver::Http2Driver(DriverHost* host, const DriverEnv& env)
    : StreamDriver(host, env, kHttp2Rules), slots_(env.connections) {
  for (Slot& s : slots_) s.driver = this;
}

// Streams the connection may have open now: -p, capped by the server's
// SETTINGS_MAX_CONCURRENT_STREAMS; none after a GOAWAY, and with --no-keepalive one stream
// per connection.
uint32_t Http2Driver::Capacity(const Connection& c) const {
  const proto::Http2ClientSession& session = *slots_[c.slot].session;
  if (!session.can_open()) return 0;
  if (!env_.plan->keep_alive) return session.streams_opened() == 0 ? 1 : 0;
  return std::min<uint32_t>(static_cast<uint32_t>(c.pending.size()), session.peer_max_streams());
}

void Http2Driver::Open(Connection& c) {
  env_.stats->Http2Connected();
  const RunPlan& plan = *env_.plan;
  if (!plan.addresses[c.address].is_unix()) env_.loop->SetNoDelay(c.slot);
  Slot& s = slots_[c.slot];
  s.connection = &c;
  if (s.session == nullptr) {
    s.session = std::make_unique<proto::Http2ClientSession>(
        c.pending.size(),
        proto::Http2ClientSettings{.window = static_cast<int32_t>(plan.http2_window),
                                   .header_table = plan.http2_header_table},
        &memory_);
    s.session->SetBodyMatcher(plan.checks.body.get());
    s.session->SetGrpc(plan.grpc);
    s.session->SetStreamBodies(env_.streams != nullptr);
    if (FlowUser* user = env_.UserOf(c.slot)) s.session->SetInspector(user);
  }
  if (!s.session->Start(&s).ok()) {
    host_->Fail(c, Outcome::kConnectError, ENOMEM);  // nghttp2 fails only when out of memory.
    return;
  }
  TakeWaiting(c);
}

void Http2Driver::Submit(Connection& c, uint32_t k) {
  const PendingRequest& r = c.pending[k];
  const proto::RequestTemplate& tmpl = env_.TemplateFor(c, r);
  absl::Status s = Session(c).Submit(tmpl, host_->ContextFor(c, r, tmpl), k);
  // nghttp2 refuses a stream only when it is out of memory or of stream ids, which
  // can_open() rules out.
  URINGLOAD_CHECK(s.ok(), "slot %u: %s", c.slot, std::string(s.message()).c_str());
}

// Sends the frames the session has ready, unless a send is in flight (its completion sends the
// rest). Streams opened since the last submit are stamped by the next one. During a drain the
// frames wait for its end: a connection's receives of one drain (over TLS, a record each)
// then go out as one send, where a send per receive halved the requests per TLS record
// and TCP segment (docs/performance.md).
void Http2Driver::Flush(Connection& c) {
  if (host_->DeferFlush(c) || c.send_size != 0) return;
  uint16_t open_before = c.count;
  std::string_view out = Session(c).Output();  // May end streams (a GOAWAY came first).
  if (c.state != ConnState::kActive) return;
  if (c.count != open_before) ScheduleStreamTimeout(c);
  if (Session(c).failed()) {  // Its GOAWAY is ready: the server broke the protocol.
    host_->Fail(c, Outcome::kParseError,
                static_cast<int>(Session(c).failed_in_hpack() ? ParseFailure::kHttp2Compression
                                                              : ParseFailure::kHttp2Protocol));
    return;
  }
  if (out.empty()) return;
  c.send_size = static_cast<uint32_t>(out.size());
  env_.loop->Send(c.slot, out.data(), c.send_size);
  MarkSent(c);
}

void Http2Driver::Refill(Connection& c) {
  // The cap is the server's SETTINGS.
  uint32_t capacity = Capacity(c);
  if (capacity < c.pending.size() && env_.plan->keep_alive) env_.stats->StreamsCapped(capacity);
  StreamDriver::Refill(c);
}

void Http2Driver::OnSent(Connection& c, int res) {
  URINGLOAD_CHECK(
      c.state == ConnState::kActive && c.send_size > 0 && res <= static_cast<int>(c.send_size),
      "slot %u state %d send %u res %d", c.slot, static_cast<int>(c.state), c.send_size, res);
  if (res < 0) {
    Lose(c, -res);
    return;
  }
  if (!env_.InWarmup()) env_.stats->BytesSent(res);
  Session(c).Sent(static_cast<uint32_t>(res));
  c.send_size = 0;
  Flush(c);
}

// Received bytes end streams (EndStream) as the session decodes them.
void Http2Driver::OnReceived(Connection& c, const net::Completion& completion) {
  URINGLOAD_CHECK(c.state == ConnState::kActive, "slot %u state %d res %d", c.slot,
                  static_cast<int>(c.state), completion.res);
  if (completion.res == 0) {
    Lose(c, ECONNRESET);
    return;
  }
  if (completion.res < 0) {
    Lose(c, -completion.res);
    return;
  }
  if (!env_.InWarmup()) env_.stats->BytesReceived(completion.res);
  uint32_t before = responses_parsed_;
  uint16_t open_before = c.count;
  received_ns_[c.slot] = *env_.now;
  absl::Status s = Session(c).Receive(completion.data);
  if (c.state != ConnState::kActive) return;
  if (!s.ok()) {  // nghttp2 ran out of memory.
    host_->Fail(c, Outcome::kReset, ENOMEM);
    return;
  }
  AfterInput(c, open_before, before);
}

void Http2Driver::Release(Connection& c) {
  Session(c).Stop();  // Its memory goes back while the slot has no connection.
}

// Each stream the server may have processed ends as a reset with `error`; the others (their
// HEADERS never left, or a GOAWAY said they were not processed) go out again.
void Http2Driver::Lose(Connection& c, int error) {
  for (uint32_t k = 0; k < c.pending.size() && c.count > 0; ++k) {
    if (!c.pending[k].in_use) continue;
    if (!Session(c).MayHaveProcessed(k) && c.pending[k].retries < kHttp2Rules.max_retries) {
      RetryStream(c, k);
    } else {
      FinishStream(c, k, Outcome::kReset, error);
    }
  }
  host_->Close(c);
}

}  // namespace uringload::core
