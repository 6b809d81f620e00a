#include "core/run/run_plan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/source_addresses.h"

namespace uringload::core {
namespace {

// The whole file, or why not: missing, unreadable, or not a regular file (a directory
// reads as zero bytes through a stream, which once sent empty bodies without a word).
absl::StatusOr<std::string> ReadBodyFile(const std::string& path) {
  auto fail = [&path](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("--body-file '", path, "': ", why));
  };
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(strerror(errno));
  std::string contents;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fail(S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
  }
  contents.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = read(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : 0;
      close(fd);
      return fail(error != 0 ? strerror(error) : "changed size while being read");
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return contents;
}

absl::Status CheckCounts(const RunOptions& options) {
  if (options.requests.has_value()) {
    if (absl::Status s = CheckRange("-n/--requests", *options.requests, 1, kMaxRequests); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = CheckRange("-c/--concurrency", options.concurrency, 1, kMaxConcurrency);
      !s.ok()) {
    return s;
  }
  if (options.threads.has_value()) {
    if (absl::Status s = CheckRange("-t/--threads", *options.threads, 1, kMaxThreads); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = CheckRange("--max-connecting", options.max_connecting, 1, kMaxConnecting);
      !s.ok()) {
    return s;
  }
  if (options.body.has_value() && options.body_file.has_value()) {
    return absl::InvalidArgumentError("--body and --body-file cannot be used together");
  }
  return absl::OkStatus();
}

// Default: one worker per CPU, never more than C, and enough that no ring's descriptor table
// exceeds RLIMIT_NOFILE. An explicit -t is kept and checked.
absl::Status ChooseThreads(const RunOptions& options, RunPlan& plan) {
  uint64_t table_limit = DescriptorTableLimit();
  uint32_t needed = static_cast<uint32_t>((plan.concurrency + table_limit - 1) / table_limit);
  uint32_t threads = options.threads.has_value() ? static_cast<uint32_t>(*options.threads)
                                                 : std::max(OnlineCpus(), needed);
  plan.threads = std::min(threads, plan.concurrency);
  uint64_t per_worker = ConnectionsForWorker(plan.concurrency, plan.threads, 0);
  if (per_worker > table_limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("-c ", plan.concurrency, " over ", plan.threads, " threads puts ", per_worker,
                     " connections on one ring, above RLIMIT_NOFILE (", table_limit, "); use -t ",
                     needed, " or more"));
  }
  return absl::OkStatus();
}

}  // namespace

uint32_t ConnectionsForWorker(uint32_t total, uint32_t workers, uint32_t index) {
  return total / workers + (index < total % workers ? 1 : 0);
}

uint32_t FirstConnectionOfWorker(uint32_t total, uint32_t workers, uint32_t index) {
  return index * (total / workers) + std::min(index, total % workers);
}

proto::RequestSpec RunPlan::RequestFor(size_t index) const {
  proto::RequestSpec spec = request;
  spec.host_header = url.HostHeader(static_cast<uint16_t>(url.port + index));
  return spec;
}

absl::StatusOr<RunPlan> MakeRunPlan(const RunOptions& options) {
  if (absl::Status s = CheckCounts(options); !s.ok()) return s;
  RunPlan plan;
  absl::StatusOr<proto::Url> url = proto::ParseUrl(options.url);
  if (!url.ok()) return url.status();
  plan.url = *url;
  if (options.duration.has_value()) {
    absl::StatusOr<absl::Duration> d =
        ParseDurationFlag("-d/--duration", *options.duration, absl::ZeroDuration(), kMaxDuration,
                          /*min_exclusive=*/true);
    if (!d.ok()) return d.status();
    plan.duration = *d;
  }
  if (options.requests.has_value()) {
    plan.requests = static_cast<uint64_t>(*options.requests);
  } else if (!plan.duration.has_value()) {
    plan.requests = kDefaultRequests;
  }
  // N requests never need more than N connections: the plan says what will happen.
  plan.requested_concurrency = static_cast<uint32_t>(options.concurrency);
  plan.concurrency =
      plan.requests.has_value()
          ? static_cast<uint32_t>(std::min<uint64_t>(options.concurrency, *plan.requests))
          : plan.requested_concurrency;
  if (absl::Status s = ChooseThreads(options, plan); !s.ok()) return s;
  absl::StatusOr<absl::Duration> timeout = ParseDurationFlag(
      "--timeout", options.timeout, absl::ZeroDuration(), kMaxTimeout, /*min_exclusive=*/true);
  if (!timeout.ok()) return timeout.status();
  plan.timeout = *timeout;
  absl::StatusOr<absl::Duration> connect_timeout =
      ParseDurationFlag("--connect-timeout", options.connect_timeout, absl::ZeroDuration(),
                        kMaxTimeout, /*min_exclusive=*/true);
  if (!connect_timeout.ok()) return connect_timeout.status();
  plan.connect_timeout = *connect_timeout;
  absl::StatusOr<absl::Duration> window = ParseDurationFlag(
      "--batch-window", options.batch_window, absl::ZeroDuration(), absl::Milliseconds(100));
  if (!window.ok()) return window.status();
  plan.batch_window = *window;

  plan.request.method = options.method;
  plan.request.target = plan.url.target;
  plan.request.host_header = plan.url.HostHeader();
  plan.request.headers = options.headers;
  plan.request.keep_alive = !options.no_keepalive;
  if (options.body.has_value()) plan.request.body = *options.body;
  if (options.body_file.has_value()) {
    absl::StatusOr<std::string> body = ReadBodyFile(*options.body_file);
    if (!body.ok()) return body.status();
    plan.request.body = *std::move(body);
  }
  // Build once here so a bad method or header is reported before any traffic.
  if (absl::Status s = proto::RequestTemplate::Build(plan.request).status(); !s.ok()) return s;

  for (uint32_t port = plan.url.port; port <= plan.url.last_port; ++port) {
    absl::StatusOr<net::SocketAddress> address =
        net::Resolve(plan.url.host, static_cast<uint16_t>(port));
    if (!address.ok()) return address.status();
    plan.targets.push_back(*address);
  }
  if (options.source.has_value()) {
    absl::StatusOr<std::vector<net::SocketAddress>> sources =
        net::ParseSourceAddresses(*options.source);
    if (!sources.ok()) return sources.status();
    for (const net::SocketAddress& source : *sources) {
      if (source.family() != plan.targets[0].family()) {
        return absl::InvalidArgumentError(
            "--source: addresses must be of the target's family (IPv4 or IPv6)");
      }
    }
    plan.sources = *std::move(sources);
  }
  plan.max_connecting = static_cast<uint32_t>(options.max_connecting);
  return plan;
}

}  // namespace uringload::core
