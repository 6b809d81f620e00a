#include "net/time_wait.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"

namespace uringload::net {
namespace {

// One /proc/net/tcp line for an IPv4 socket, printed the way the kernel prints it.
std::string Line4(const char* local, uint16_t local_port, const char* remote, uint16_t remote_port,
                  const char* state) {
  in_addr l{}, r{};
  inet_pton(AF_INET, local, &l);
  inet_pton(AF_INET, remote, &r);
  return absl::StrFormat(
      "   7: %08X:%04X %08X:%04X %s 00000000:00000000 03:00000399 00000000     0        0 0 3 "
      "00000000b1643bdc\n",
      l.s_addr, local_port, r.s_addr, remote_port, state);
}

constexpr char kHeader[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n";

TEST(TimeWaitTest, CountsTimeWaitSocketsPerTarget) {
  std::string text = kHeader;
  for (int i = 0; i < 5; ++i) text += Line4("127.0.0.1", 40000 + i, "127.0.0.1", 8080, "06");
  text += Line4("127.0.0.1", 41000, "127.0.0.1", 8081, "06");
  text += Line4("127.0.0.1", 41001, "127.0.0.1", 8080, "01");  // Established: not counted.
  text += Line4("127.0.0.1", 41002, "127.0.0.2", 8080, "06");  // Another host.
  text += "garbage line\n";
  std::vector<SocketAddress> targets = {*Resolve("127.0.0.1", 8080), *Resolve("127.0.0.1", 8081)};
  std::vector<uint64_t> counts(2);
  CountTimeWait(text, false, {}, targets, counts);
  EXPECT_EQ(counts, (std::vector<uint64_t>{5, 1}));
}

TEST(TimeWaitTest, CountsPerSourceAddressWhenSourcesAreGiven) {
  std::string text = kHeader;
  text += Line4("127.0.0.2", 40000, "127.0.0.1", 8080, "06");
  text += Line4("127.0.0.3", 40000, "127.0.0.1", 8080, "06");
  text += Line4("127.0.0.3", 40001, "127.0.0.1", 8080, "06");
  text += Line4("127.0.0.9", 40001, "127.0.0.1", 8080, "06");  // Not one of the run's sources.
  std::vector<SocketAddress> sources = {*Resolve("127.0.0.2", 0), *Resolve("127.0.0.3", 0)};
  std::vector<SocketAddress> targets = {*Resolve("127.0.0.1", 8080)};
  std::vector<uint64_t> counts(2);
  CountTimeWait(text, false, sources, targets, counts);
  EXPECT_EQ(counts, (std::vector<uint64_t>{1, 2}));
}

TEST(TimeWaitTest, ParsesIpv6Lines) {
  in6_addr loopback = IN6ADDR_LOOPBACK_INIT;
  uint32_t w[4];
  std::memcpy(w, &loopback, 16);
  std::string address = absl::StrFormat("%08X%08X%08X%08X", w[0], w[1], w[2], w[3]);
  std::string text = std::string(kHeader) + "   0: " + address + ":9C40 " + address +
                     ":1F90 06 00000000:00000000 03:00000399 00000000     0        0 0 3 0\n";
  std::vector<SocketAddress> targets = {*Resolve("::1", 8080)};
  std::vector<uint64_t> counts(1);
  CountTimeWait(text, true, {}, targets, counts);
  EXPECT_EQ(counts[0], 1u);
  counts[0] = 0;
  CountTimeWait(text, false, {}, targets, counts);  // Read as IPv4: nothing parses.
  EXPECT_EQ(counts[0], 0u);
}

// A figure from /proc/self/status, in kB.
long StatusKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field)));
  }
  return -1;
}

// The preflight reads /proc/net/tcp with every socket of the namespace in it: 15 MB at 100,000
// sockets. Read whole, it lifted a run's peak RSS from 13.4 to 27.3 MB; read a line at a time,
// the peak must not move.
TEST(TimeWaitTest, ReadsAFileOfManySocketsInFlatMemory) {
  std::string path = absl::StrFormat("/tmp/uringload_time_wait_test_%d", getpid());
  constexpr int kSockets = 140000;  // ~21 MB of lines.
  {
    std::ofstream out(path);
    out << kHeader;
    for (int i = 0; i < kSockets; ++i) {
      out << Line4("127.0.0.1", static_cast<uint16_t>(1024 + i % 60000), "127.0.0.1", 8080, "06");
    }
  }
  // Writing 5 to clear_refs resets VmHWM, the peak resident set, to the current one.
  { std::ofstream("/proc/self/clear_refs") << "5"; }
  long before = StatusKb("VmHWM:");
  ASSERT_GT(before, 0);
  std::vector<SocketAddress> targets = {*Resolve("127.0.0.1", 8080)};
  std::vector<uint64_t> counts(1);
  CountTimeWaitInFile(path.c_str(), false, {}, targets, counts);
  long peak = StatusKb("VmHWM:");
  std::remove(path.c_str());
  EXPECT_EQ(counts[0], static_cast<uint64_t>(kSockets));
  EXPECT_LT(peak - before, 2048) << "kB of peak RSS added while reading the file";
}

}  // namespace
}  // namespace uringload::net
