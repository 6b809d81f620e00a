// End-to-end: --cpus. The worker threads of `serve` and `run` are pinned to the listed CPUs
// (read back from /proc/PID/task/*/status), and `serve` gives each connection to the worker on
// the CPU its SYN arrived on: a client pinned to one CPU lands every connection in one
// worker's ring, a client pinned to the other CPU in the other ring (read back from the rings'
// /proc/PID/fdinfo, which lists each ring's registered sockets).
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/cpu_pinning.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/process.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    }
    closedir(d);
  }
  return names;
}

// How many of process `pid`'s threads may run on exactly `cpu_list` (taskset's syntax).
int ThreadsPinnedTo(pid_t pid, const std::string& cpu_list) {
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  int pinned = 0;
  for (const std::string& tid : Entries(dir)) {
    std::ifstream status(dir + "/" + tid + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("Cpus_allowed_list:", 0) == 0) {
        pinned += line.substr(line.find_first_not_of(" \t", 18)) == cpu_list;
      }
    }
  }
  return pinned;
}

// The sockets registered in each of process `pid`'s io_uring rings, by the ring's fd. A ring
// whose lock is held while the kernel prints it leaves its table out; it is read again.
std::map<int, int> SocketsPerRing(pid_t pid) {
  std::string proc = "/proc/" + std::to_string(pid);
  std::map<int, int> sockets;
  for (const std::string& fd : Entries(proc + "/fd")) {
    char target[256] = {};
    if (readlink((proc + "/fd/" + fd).c_str(), target, sizeof(target) - 1) < 0) continue;
    if (std::string(target).find("io_uring") == std::string::npos) continue;
    for (int attempt = 0; attempt < 50; ++attempt) {
      std::ifstream info(proc + "/fdinfo/" + fd);
      std::string line;
      bool listed = false;
      int count = 0;
      while (std::getline(info, line)) {
        if (line.rfind("UserFiles:", 0) == 0) listed = true;
        if (line.find(": socket:[") != std::string::npos) ++count;
      }
      if (listed) {
        sockets[std::stoi(fd)] = count;
        break;
      }
      usleep(20'000);
    }
  }
  return sockets;
}

TEST(CpuPinningE2ETest, WorkersRunOnTheListedCpus) {
  std::string cpu = std::to_string(core::AllowedCpus().back());
  UringloadServer server({"-t", "2", "--cpus", cpu});
  ASSERT_TRUE(server.ok());
  // serve answers once one worker listens; the other may still be pinning itself (seen under
  // TSan), so both counts are polled within a bound.
  int serving = 0;
  for (int i = 0; i < 100 && serving < 2; ++i) {
    serving = ThreadsPinnedTo(server.pid(), cpu);
    if (serving < 2) usleep(20'000);
  }
  EXPECT_EQ(serving, 2) << "serve's two workers on CPU " << cpu;

  char path[] = "/tmp/uringload-result-XXXXXX";
  close(mkstemp(path));
  BackgroundProcess run({UringloadBinary(), "run", "-q", "-t", "2", "--cpus", cpu, "-c", "4", "-d",
                         "3s", "--json", path, server.Url("/")});
  int pinned = 0;
  for (int i = 0; i < 100 && pinned < 2; ++i) {
    usleep(20'000);
    pinned = ThreadsPinnedTo(run.pid(), cpu);
  }
  EXPECT_EQ(pinned, 2) << "run's two workers on CPU " << cpu;
  EXPECT_EQ(run.Wait(30), 0);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path);
  absl::StatusOr<FlatJson> json = FlattenJson(text);
  ASSERT_TRUE(json.ok()) << text;
  EXPECT_GT(JsonCount(*json, "outcomes.ok"), 0u);
  EXPECT_EQ(JsonCount(*json, "outcomes.ok"), JsonCount(*json, "requests.completed"));
}

TEST(CpuPinningE2ETest, EachConnectionGoesToTheWorkerOnItsCpu) {
  std::vector<int> cpus = core::AllowedCpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  std::string a = std::to_string(cpus[0]), b = std::to_string(cpus[1]);
  // A 1 s delay keeps the connections open and the server's workers waiting, not busy.
  UringloadServer server({"-t", "2", "--cpus", a + "," + b, "--delay", "1s"});
  ASSERT_TRUE(server.ok());
  std::map<int, int> idle = SocketsPerRing(server.pid());
  ASSERT_EQ(idle.size(), 2u);
  std::vector<int> rings_used;
  for (const std::string& client_cpu : {a, b}) {
    BackgroundProcess run({UringloadBinary(), "run", "-q", "-t", "1", "--cpus", client_cpu, "-c",
                           "10", "-n", "30", server.Url("/")});
    std::map<int, int> held;
    for (int i = 0; i < 150; ++i) {  // Until all 10 connections are accepted.
      usleep(20'000);
      held.clear();
      int total = 0;
      for (auto [fd, count] : SocketsPerRing(server.pid())) {
        held[fd] = count - idle[fd];
        total += held[fd];
      }
      if (total == 10) break;
    }
    std::vector<int> with_connections;
    for (auto [fd, count] : held) {
      if (count > 0) with_connections.push_back(fd);
      EXPECT_TRUE(count == 0 || count == 10)
          << "a client on CPU " << client_cpu << " has " << count << " connections in ring " << fd;
    }
    ASSERT_EQ(with_connections.size(), 1u) << "client on CPU " << client_cpu;
    rings_used.push_back(with_connections[0]);
    EXPECT_EQ(run.Wait(30), 0);
  }
  EXPECT_NE(rings_used[0], rings_used[1]) << "clients on two CPUs, one server worker";
}

}  // namespace
}  // namespace uringload::testing
