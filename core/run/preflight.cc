#include "core/run/preflight.h"

#include <netinet/in.h>

#include <algorithm>
#include <bit>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/latency_histogram.h"
#include "core/run/connection.h"
#include "net/buffer_ring.h"
#include "net/listener.h"
#include "net/time_wait.h"
#include "net/tls_context.h"

namespace uringload::core {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// A Unix socket's server is on this machine, like a loopback one: somaxconn caps its backlog.
bool IsLoopback(const net::SocketAddress& address) {
  if (address.is_unix()) return true;
  if (address.family() == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address.storage);
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address.storage);
  return IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
}

PreflightCheck CheckTables(const RunPlan& plan, const MachineLimits& limits) {
  // A flow's users hold a connection per origin (lanes).
  uint64_t connections = uint64_t{plan.concurrency} * plan.lanes;
  uint64_t per_ring = ConnectionsForWorker(plan.concurrency, plan.threads, 0) * plan.lanes;
  std::string line = absl::StrCat(
      "descriptor tables: ", connections, " connections over ", plan.threads, " rings = ", per_ring,
      " per ring; RLIMIT_NOFILE caps a ring at ", limits.descriptor_table);
  if (per_ring <= limits.descriptor_table) return {true, line};
  return {false, absl::StrCat(line, "; fix: -t ", CeilDiv(connections, limits.descriptor_table),
                              " or more")};
}

PreflightCheck CheckPorts(const RunPlan& plan, const MachineLimits& limits) {
  if (plan.addresses[0].is_unix()) return {true, "ports: none used (a Unix socket)"};
  uint64_t sources = std::max<size_t>(1, plan.sources.size());
  uint64_t pairs = sources * plan.addresses.size();
  uint64_t per_pair = CeilDiv(plan.concurrency, pairs);
  uint64_t held = limits.time_wait_per_pair;
  std::string line = absl::StrCat(
      "ports: ", plan.concurrency, " connections over ", pairs,
      " source/destination pairs = ", per_pair, " per pair",
      held > 0 ? absl::StrCat(" + up to ", held, " held by TIME_WAIT sockets of earlier runs") : "",
      "; net.ipv4.ip_local_port_range gives ", limits.ports());
  // Past half of a pair's range every connect gets slower: the kernel's port search walks one
  // parity first (docs/performance.md, "The connect ramp").
  auto fits = [&](uint64_t ports) { return ports * 2 <= limits.ports(); };
  if (fits(per_pair + held)) return {true, line};
  if (fits(per_pair)) {  // Only the TIME_WAIT sockets are in the way: they expire within 60 s.
    return {false, absl::StrCat(line,
                                "; fix: wait up to 60 s for them to expire, or use other target "
                                "ports or --source addresses, or uringload-tune-kernel apply")};
  }
  uint64_t pairs_needed = CeilDiv(plan.concurrency * 2, limits.ports());
  uint64_t sources_needed = CeilDiv(pairs_needed, plan.addresses.size());
  // The widest range tune-kernel sets, 1024-65535, may still need more pairs.
  uint64_t tuned_pairs = CeilDiv(plan.concurrency * 2, 65535 - 1024 + 1);
  std::string tuned =
      absl::StrCat("uringload-tune-kernel apply (ip_local_port_range 1024 65535)",
                   tuned_pairs > pairs ? absl::StrCat(" with ", tuned_pairs, " pairs") : "");
  // Every 127.0.0.0/8 address is this machine's; elsewhere (and for IPv6, whose loopback is
  // ::1 alone) the user knows which addresses the machine has.
  const net::SocketAddress& target = plan.addresses[0];
  std::string sources_fix =
      target.family() == AF_INET && IsLoopback(target)
          ? absl::StrCat("--source 127.0.0.2-127.0.0.", 1 + sources_needed, " (loopback)")
          : absl::StrCat("--source with ", sources_needed, " of this machine's ",
                         target.family() == AF_INET ? "IPv4" : "IPv6", " addresses");
  return {false, absl::StrCat(line, "; fix: ", sources_fix, ", or a port range in the URL (",
                              pairs_needed, " ports), or ", tuned)};
}

PreflightCheck CheckBacklog(const RunPlan& plan, const MachineLimits& limits) {
  uint64_t connecting = static_cast<uint64_t>(plan.max_connecting) * plan.threads;
  uint64_t wanted = std::min<uint64_t>(std::max<uint64_t>(connecting, plan.concurrency), 65535);
  if (limits.somaxconn <= 0) {  // No /proc (a chroot, a container without it): say so.
    return {true,
            "listen backlog: net.core.somaxconn unknown (/proc/sys/net/core/somaxconn "
            "cannot be read), not checked"};
  }
  std::string line = absl::StrCat("listen backlog: net.core.somaxconn ", limits.somaxconn,
                                  " caps a loopback target's accept queue; this run opens up to ",
                                  connecting, " connections at once");
  if (!IsLoopback(plan.addresses[0]) || static_cast<uint64_t>(limits.somaxconn) >= wanted) {
    return {true, line};
  }
  return {false, absl::StrCat(line, "; fix: sysctl -w net.core.somaxconn=", wanted,
                              " (uringload-tune-kernel apply)")};
}

PreflightCheck CheckConnectionTable(const RunPlan& plan, const MachineLimits& limits) {
  if (plan.addresses[0].is_unix()) return {true, "connection table: none used (a Unix socket)"};
  if (limits.established_buckets == 0) {
    return {true,
            "connection table: net.ipv4.tcp_ehash_entries unknown (cannot be read), not checked"};
  }
  uint64_t sockets = uint64_t{plan.concurrency} * (IsLoopback(plan.addresses[0]) ? 2 : 1);
  std::string line =
      absl::StrCat("connection table: ", limits.established_buckets,
                   " buckets (net.ipv4.tcp_ehash_entries) for this run's ", sockets, " sockets");
  if (sockets <= kSocketsPerBucket * limits.established_buckets) return {true, line};
  uint64_t wanted = std::min(std::bit_ceil(sockets), kMaxEstablishedBuckets);
  // A namespace's table is sized once, when it is made: the host's at boot.
  return {false,
          absl::StrCat(line,
                       "; fix: run in a network namespace made after sysctl -w "
                       "net.ipv4.tcp_child_ehash_entries=",
                       wanted, " (uringload-tune-kernel apply --concurrency ", plan.concurrency,
                       ", then unshare -n), or boot with thash_entries=", wanted)};
}

PreflightCheck CheckMemory(const RunPlan& plan, const MachineLimits& limits) {
  uint64_t kernel = EstimateKernelBytes(plan);
  uint64_t bytes = EstimateMemoryBytes(plan) + kernel;
  std::string line = absl::StrFormat(
      "memory: about %.1f MiB for this run (%.1f MiB of it the kernel's sockets); %.1f MiB "
      "available",
      bytes / 1048576.0, kernel / 1048576.0, limits.memory_available / 1048576.0);
  if (limits.memory_available == 0 || bytes * 10 <= limits.memory_available * 8) {
    return {true, line};
  }
  return {false, absl::StrCat(line, "; fix: lower -c or free memory")};
}

}  // namespace

MachineLimits ReadMachineLimits(const RunPlan& plan) {
  MachineLimits limits;
  for (uint64_t held : net::CountTimeWait(plan.sources, plan.addresses)) {
    limits.time_wait_per_pair = std::max(limits.time_wait_per_pair, held);
  }
  limits.descriptor_table = DescriptorTableLimit();
  limits.kernel_tls = net::KernelTlsAvailable();
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> limits.port_range_low >>
      limits.port_range_high;
  limits.somaxconn = net::SomaxConn();
  int64_t buckets = 0;
  if (std::ifstream("/proc/sys/net/ipv4/tcp_ehash_entries") >> buckets) {
    limits.established_buckets = static_cast<uint64_t>(buckets < 0 ? -buckets : buckets);
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") limits.memory_available = kib * 1024;
  }
  return limits;
}

uint64_t EstimateMemoryBytes(const RunPlan& plan) {
  uint64_t request = 0;
  for (const TargetRequest& target : plan.targets) {
    uint64_t size = target.spec.target.size() + target.spec.body.size() + 256;
    for (const std::string& h : target.spec.headers) size += h.size() + 2;
    request = std::max(request, size);
  }
  request = (request + sizeof(PendingRequest)) * plan.pipeline;
  uint64_t per_worker = ConnectionsForWorker(plan.concurrency, plan.threads, 0);
  net::ReceiveBufferLayout layout = net::IncrementalReceiveBuffers(per_worker);  // The larger.
  uint64_t buffers = uint64_t{layout.count} * layout.size;
  uint64_t fixed_per_worker = buffers + 2 * sizeof(LatencyHistogram) + 4096 * 64 /* SQ */ +
                              65536 * 16 /* CQ at most */ + (1 << 20) /* stack */;
  if (plan.tls != nullptr) request += kTlsBytesPerConnection;
  return uint64_t{plan.concurrency} * plan.lanes * (sizeof(Connection) + request) +
         plan.threads * fixed_per_worker;
}

uint64_t EstimateKernelBytes(const RunPlan& plan) {
  uint64_t ends = !plan.addresses.empty() && IsLoopback(plan.addresses[0]) ? 2 : 1;
  return plan.concurrency * ends * kKernelBytesPerSocket;
}

// Informational: this kernel's kTLS (none here: /proc/sys/net/ipv4/tcp_available_ulp lists
// only mptcp), so nobody wonders why user-space TLS is used.
PreflightCheck CheckKernelTls(const MachineLimits& limits) {
  return {true, limits.kernel_tls
                    ? "kernel TLS: the tls ULP is available; uringload uses OpenSSL in user space"
                    : "kernel TLS: not available (no tls in /proc/sys/net/ipv4/tcp_available_ulp); "
                      "uringload uses OpenSSL in user space"};
}

std::vector<PreflightCheck> Preflight(const RunPlan& plan, const MachineLimits& limits) {
  std::vector<PreflightCheck> checks = {
      CheckTables(plan, limits), CheckPorts(plan, limits), CheckBacklog(plan, limits),
      CheckConnectionTable(plan, limits), CheckMemory(plan, limits)};
  if (plan.tls != nullptr) checks.push_back(CheckKernelTls(limits));
  return checks;
}

}  // namespace uringload::core
