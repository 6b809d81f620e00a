#include "core/run/http3_connection.h"

#include "absl/strings/str_cat.h"
#include "net/base/check.h"

namespace uringload::core {
namespace {

constexpr uint64_t kH3NoError = 0x100;  // RFC 9114 8.1.

}  // namespace

absl::Status Http3Connection::Start(const net::QuicTlsContext& tls, const net::QuicPath& path,
                                    std::string server_name, const net::QuicSettings& settings,
                                    Events* events, int64_t now_ns,
                                    std::span<const uint8_t> resume) {
  events_ = events;
  http3_failure_.clear();
  session_.Stop();
  absl::StatusOr<std::unique_ptr<net::QuicConnection>> quic = net::QuicConnection::Client(
      tls, path, std::move(server_name), settings, this, now_ns, resume);
  if (!quic.ok()) return quic.status();
  quic_ = *std::move(quic);
  quic_->set_source(this);
  return absl::OkStatus();
}

bool Http3Connection::Receive(std::span<const uint8_t> datagram, int64_t now_ns) {
  return quic_->Receive(datagram, now_ns);
}

size_t Http3Connection::Write(std::span<uint8_t> out, int64_t now_ns, uint32_t* datagram_size) {
  return quic_->Write(out, now_ns, datagram_size);
}

bool Http3Connection::can_open() const {
  return quic_ != nullptr && quic_->end() == net::QuicEnd::kOpen && session_.started() &&
         session_.can_open();
}

bool Http3Connection::ready() const {
  return quic_ != nullptr && quic_->end() == net::QuicEnd::kOpen && session_.started();
}

uint64_t Http3Connection::streams_left() const {
  return can_open() ? quic_->streams_bidi_left() : 0;
}

absl::Status Http3Connection::Submit(const proto::RequestTemplate& request,
                                     const proto::TemplateContext& context, uint32_t tag) {
  int64_t id = quic_->OpenStream();
  if (id < 0) return absl::ResourceExhaustedError("the server allows no more streams now");
  return session_.Submit(request, context, tag, id);
}

void Http3Connection::CloseGracefully() {
  if (quic_ != nullptr) quic_->CloseWithApplicationError(kH3NoError, "closed by the client");
}

void Http3Connection::Stop() {
  session_.Stop();
  quic_.reset();
}

const std::string& Http3Connection::end_reason() const {
  return http3_failure_.empty() ? quic_->end_reason() : http3_failure_;
}

void Http3Connection::OnHandshakeCompleted() {
  // HTTP/3's control stream and QPACK's two streams, the client's first unidirectional ones
  // (the server allows at least three: RFC 9114 6.2).
  int64_t control = quic_->OpenUniStream();
  int64_t encoder = quic_->OpenUniStream();
  int64_t decoder = quic_->OpenUniStream();
  if (control < 0 || encoder < 0 || decoder < 0) {
    FailHttp3(absl::UnavailableError("the server allows fewer than 3 unidirectional streams"));
    return;
  }
  if (absl::Status s = session_.Start(this, control, encoder, decoder); !s.ok()) {
    FailHttp3(s);
    return;
  }
  events_->OnReady();
}

void Http3Connection::OnStreamData(int64_t id, std::span<const uint8_t> data, bool fin) {
  if (!session_.started()) return;
  if (absl::Status s = session_.Receive(id, data, fin); !s.ok()) FailHttp3(s);
}

void Http3Connection::OnStreamDataAcked(int64_t id, uint64_t /*offset*/, uint64_t length) {
  if (session_.started()) session_.Acked(id, length);
}

void Http3Connection::OnStreamClosed(int64_t id, uint64_t app_error_code) {
  if (!session_.started()) return;
  if (absl::Status s = session_.StreamClosed(id, app_error_code); !s.ok()) FailHttp3(s);
}

int64_t Http3Connection::NextStreamData(std::span<net::QuicVec> vecs, size_t* count, bool* fin) {
  *count = 0;
  *fin = false;
  if (!session_.started()) return -1;
  static_assert(sizeof(net::QuicVec) == sizeof(proto::Http3Vec));
  proto::Http3Vec h3[16];
  int64_t id =
      session_.NextStreamData(std::span(h3, std::min(vecs.size(), std::size(h3))), count, fin);
  for (size_t i = 0; i < *count; ++i) vecs[i] = {h3[i].base, h3[i].length};
  if (id < 0 && session_.error_code() != 0) {
    FailHttp3(absl::DataLossError("HTTP/3: nghttp3 could not write"));
  }
  return id;
}

void Http3Connection::Consumed(int64_t id, size_t bytes) { session_.Consumed(id, bytes); }

void Http3Connection::Blocked(int64_t id) { session_.Blocked(id); }

void Http3Connection::Unblocked(int64_t id) {
  if (session_.started()) session_.Unblocked(id);
}

void Http3Connection::OnStreamEnd(const proto::Http3StreamEnd& end) { events_->OnStreamEnd(end); }

void Http3Connection::OnStreamShutdown(int64_t id, uint64_t code) {
  quic_->ShutdownStream(id, code);
}

void Http3Connection::FailHttp3(const absl::Status& status) {
  if (!http3_failure_.empty()) return;
  http3_failure_ = std::string(status.message());
  // H3_GENERAL_PROTOCOL_ERROR unless nghttp3 named the error.
  uint64_t code = session_.error_code() != 0 ? session_.error_code() : 0x101;
  quic_->CloseWithApplicationError(code, http3_failure_);
}

}  // namespace uringload::core
