// Preflight: checks a run plan against this machine's limits before any traffic: descriptor
// tables vs RLIMIT_NOFILE, ephemeral ports per (source, destination) pair vs concurrency plus
// the ports that earlier connections' TIME_WAIT sockets still hold,
// the listen backlog cap for loopback targets, the kernel's table of established connections,
// memory, and for https:// whether kernel TLS
// would be available (uringload uses OpenSSL in user space either way). Each problem is one
// line that names the exact fix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/run/run_plan.h"

namespace uringload::core {

struct MachineLimits {
  uint64_t descriptor_table = 0;  // RLIMIT_NOFILE: one ring's direct descriptors.
  uint32_t port_range_low = 32768;
  uint32_t port_range_high = 60999;  // net.ipv4.ip_local_port_range
  int somaxconn = 4096;
  uint64_t memory_available = 0;    // MemAvailable, bytes.
  uint64_t time_wait_per_pair = 0;  // The most TIME_WAIT sockets any of the plan's pairs has.
  bool kernel_tls = false;          // The kernel offers the `tls` ULP (kTLS).
  // Buckets of this network namespace's table of established TCP connections
  // (|net.ipv4.tcp_ehash_entries|; negative there when shared with the host); 0: unknown.
  uint64_t established_buckets = 0;

  uint32_t ports() const { return port_range_high - port_range_low + 1; }
};

// Reads the limits; the TIME_WAIT count is for `plan`'s (source, target) pairs.
MachineLimits ReadMachineLimits(const RunPlan& plan);

struct PreflightCheck {
  bool ok;
  std::string line;  // "what: numbers" and, when not ok, "; fix: ...".
};

std::vector<PreflightCheck> Preflight(const RunPlan& plan, const MachineLimits& limits);

// Client RSS per TLS connection, measured: c=100 -> c=5,000 keep-alive against `serve
// --tls-cert` added 26.3 KB per connection (wrk: 56.6 KB).
inline constexpr uint64_t kTlsBytesPerConnection = 27 * 1024;

// Bytes this run's client will hold at most: per connection plus per worker.
uint64_t EstimateMemoryBytes(const RunPlan& plan);

// The kernel's memory per TCP socket: 3,584 B of slab objects (TCP, sock_inode_cache, filp,
// dentry) plus buffers; 4.8-6.8 KB measured at 10,000 to 1,000,000 connections
// (docs/performance.md).
inline constexpr uint64_t kKernelBytesPerSocket = 6 * 1024;

// Sockets per bucket of the kernel's established-connection table past which the preflight
// asks for a larger table: every packet looks its socket up there, along a chain of cache
// misses. 1,000,000 loopback connections (2,000,000 sockets, 7.6 per bucket of 262,144) opened
// in 35-45 s (median 36.8 of 5 runs), in 25-39 s (median 32.6 of 6) with 2,097,152 buckets; at
// 2.3 per bucket a larger table gained nothing (docs/performance.md).
inline constexpr uint64_t kSocketsPerBucket = 4;
// The most buckets net.ipv4.tcp_child_ehash_entries takes.
inline constexpr uint64_t kMaxEstablishedBuckets = uint64_t{1} << 24;

// The kernel's memory for this run's sockets: one per connection, two when the target is on
// this machine (its loopback), where the server's end lives too.
uint64_t EstimateKernelBytes(const RunPlan& plan);

}  // namespace uringload::core
