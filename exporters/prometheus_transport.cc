// Getting metrics out: the /metrics endpoint (prometheus-cpp pull) and the Pushgateway pusher.
#include <prometheus/exposer.h>
#include <prometheus/gateway.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <regex>
#include <stdexcept>
#include <thread>

#include "absl/strings/str_cat.h"
#include "exporters/prometheus_metrics.h"
#include "net/address.h"
#include "proto/url.h"

namespace uringload::exporters {

absl::StatusOr<std::pair<std::string, std::string>> ParseMetricsLabel(const std::string& text) {
  size_t eq = text.find('=');
  std::string name = text.substr(0, eq);
  static const std::regex kName("[a-zA-Z_][a-zA-Z0-9_]*");
  // role, run_id and shard are set by uringload itself.
  if (eq == std::string::npos || !std::regex_match(name, kName) || name.rfind("__", 0) == 0 ||
      name == "role" || name == "run_id" || name == "shard") {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics-label: '", text,
                     "' must be name=value with a Prometheus label name (not role, run_id or "
                     "shard, which uringload sets; not starting __)"));
  }
  return std::make_pair(name, text.substr(eq + 1));
}

struct MetricsEndpoint::Impl {
  std::string host;  // The address bound, as a literal without brackets.
  std::shared_ptr<prometheus::Collectable> collectable;
  std::unique_ptr<prometheus::Exposer> exposer;
};

namespace {

// The host part of "ADDR:PORT" / "[ADDR]:PORT" as an address to connect to: a wildcard bind
// is reached on loopback.
std::string ConnectableHost(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty() || host == "0.0.0.0") return "127.0.0.1";
  if (host == "::") return "::1";
  return host;
}

// Opens and at once drops a connection to `to`, without waiting for anything.
void Knock(const net::SocketAddress& to) {
  int fd = socket(to.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  (void)connect(fd, reinterpret_cast<const sockaddr*>(&to.storage), to.length);
  close(fd);
}

}  // namespace

MetricsEndpoint::MetricsEndpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

// civetweb 1.15 sees a stop only when its listener's poll() returns (a connection, or every
// 2 s), so a connection every 10 ms while it stops wakes it; they repeat until the stop is
// done (docs/performance.md, "Measurements behind the code").
MetricsEndpoint::~MetricsEndpoint() {
  std::vector<int> ports = impl_->exposer->GetListeningPorts();
  absl::StatusOr<net::SocketAddress> to =
      ports.empty() ? absl::NotFoundError("no port")
                    : net::Resolve(impl_->host, static_cast<uint16_t>(ports.front()));
  std::atomic<bool> stopped{false};
  std::thread knocker;
  if (to.ok()) {
    knocker = std::thread([&] {
      // At most 2 s of knocks: civetweb's own poll ends the stop by then anyway.
      for (int i = 0; i < 200 && !stopped.load(); ++i) {
        Knock(*to);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  impl_->exposer.reset();
  stopped = true;
  if (knocker.joinable()) knocker.join();
}

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const std::string& address, std::shared_ptr<prometheus::Collectable> collectable) {
  auto impl = std::make_unique<Impl>();
  impl->host = ConnectableHost(address);
  impl->collectable = std::move(collectable);
  try {
    impl->exposer = std::make_unique<prometheus::Exposer>(address, 1);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("--metrics-listen: cannot serve metrics on '", address, "': ", e.what()));
  }
  impl->exposer->RegisterCollectable(impl->collectable);
  return std::unique_ptr<MetricsEndpoint>(new MetricsEndpoint(std::move(impl)));
}

struct MetricsPusher::Impl {
  std::string url;
  std::shared_ptr<prometheus::Collectable> collectable;
  std::unique_ptr<prometheus::Gateway> gateway;
};

MetricsPusher::MetricsPusher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

absl::StatusOr<std::unique_ptr<MetricsPusher>> MetricsPusher::Start(
    const std::string& url, const std::string& job, const LabelPairs& grouping,
    absl::Duration interval, std::shared_ptr<prometheus::Collectable> collectable) {
  absl::StatusOr<proto::Url> parsed = proto::ParseUrl(url);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--pushgateway: ", parsed.status().message()));
  }
  if (job.empty() || job.find('/') != std::string::npos) {
    return absl::InvalidArgumentError("--push-job must be a non-empty name without '/'");
  }
  auto impl = std::make_unique<Impl>();
  impl->url = url;
  impl->collectable = std::move(collectable);
  std::string host =
      parsed->host_is_ipv6_literal ? absl::StrCat("[", parsed->host, "]") : parsed->host;
  prometheus::Labels key(grouping.begin(), grouping.end());
  impl->gateway = std::make_unique<prometheus::Gateway>(absl::StrCat("http://", host),
                                                        std::to_string(parsed->port), job, key);
  impl->gateway->RegisterCollectable(impl->collectable);
  std::unique_ptr<MetricsPusher> pusher(new MetricsPusher(std::move(impl)));
  if (interval > absl::ZeroDuration()) {
    pusher->thread_ = std::thread([p = pusher.get(), interval] { p->Loop(interval); });
  }
  return pusher;
}

MetricsPusher::~MetricsPusher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MetricsPusher::Loop(absl::Duration interval) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (
      !wake_.wait_for(lock, absl::ToChronoMilliseconds(interval), [this] { return stopping_; })) {
    lock.unlock();
    (void)Push();  // A missed periodic push is not fatal; the final one is checked.
    lock.lock();
  }
}

absl::Status MetricsPusher::Push() {
  int code = impl_->gateway->Push();
  if (code >= 200 && code < 300) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("pushing metrics to ", impl_->url, " failed (HTTP status ", code, ")"));
}

}  // namespace uringload::exporters
