#include "core/cpu_contention.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace uringload::core {
namespace {

TEST(CpuContentionTest, TheRunQueueDelayIsSchedstatsSecondField) {
  EXPECT_EQ(ParseRunQueueNanos("3516003 1099459 3\n"), 1'099'459u);
  EXPECT_EQ(ParseRunQueueNanos("3516003"), std::nullopt);
  EXPECT_EQ(ParseRunQueueNanos(""), std::nullopt);
  EXPECT_EQ(ParseRunQueueNanos("1 x 3"), std::nullopt);
}

// The calling thread's count exists here and grows while another busy thread holds its CPU;
// it is at least what /proc/self/task/TID says a moment earlier.
TEST(CpuContentionTest, ThisThreadsCountIsReadable) {
  std::optional<uint64_t> before = RunQueueNanosOfThread(gettid());
  std::optional<uint64_t> now = ThisThreadRunQueueNanos();
  ASSERT_TRUE(before.has_value());
  ASSERT_TRUE(now.has_value());
  EXPECT_GE(*now, *before);
  EXPECT_EQ(RunQueueNanosOfThread(0), std::nullopt);
}

TEST(CpuContentionTest, CpuStatOfBothCgroupVersions) {
  std::optional<ThrottleCount> v2 =
      ParseCpuStat("usage_usec 100\nnr_periods 40\nnr_throttled 12\nthrottled_usec 250000\n");
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->throttled_ns, 250'000'000u);
  EXPECT_EQ(v2->periods, 12u);
  std::optional<ThrottleCount> v1 =
      ParseCpuStat("nr_periods 40\nnr_throttled 7\nthrottled_time 1234567\nnr_bursts 0\n");
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->throttled_ns, 1'234'567u);
  EXPECT_EQ(v1->periods, 7u);
  // v2 without the cpu controller enabled: usage only.
  EXPECT_EQ(ParseCpuStat("usage_usec 100\nuser_usec 50\n"), std::nullopt);
}

TEST(CpuContentionTest, TheCgroupAndItsAncestorsUpToTheMount) {
  const char* v2_mountinfo =
      "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
  EXPECT_EQ(CpuStatPaths("0::/ci/job7\n", v2_mountinfo),
            (std::vector<std::string>{"/sys/fs/cgroup/ci/job7/cpu.stat",
                                      "/sys/fs/cgroup/ci/cpu.stat", "/sys/fs/cgroup/cpu.stat"}));
  EXPECT_EQ(CpuStatPaths("0::/\n", v2_mountinfo),
            (std::vector<std::string>{"/sys/fs/cgroup/cpu.stat"}));
  // cgroup v1 (this kind of VM): the hierarchy with the cpu controller, not cpuacct's alone.
  const char* v1_mountinfo =
      "36 25 0:31 / /sys/fs/cgroup/cpu rw,relatime shared:11 - cgroup cgroup rw,cpu\n"
      "37 25 0:32 / /sys/fs/cgroup/cpuacct rw,relatime shared:12 - cgroup cgroup rw,cpuacct\n"
      "45 25 0:40 / /sys/fs/cgroup/unified rw,relatime shared:18 - cgroup2 cgroup2 rw\n";
  EXPECT_EQ(
      CpuStatPaths("2:cpuacct:/\n1:cpu:/bench\n0::/\n", v1_mountinfo),
      (std::vector<std::string>{"/sys/fs/cgroup/cpu/bench/cpu.stat", "/sys/fs/cgroup/cpu/cpu.stat",
                                "/sys/fs/cgroup/unified/cpu.stat"}));
  // A container's mount whose root is its own cgroup.
  EXPECT_EQ(
      CpuStatPaths("0::/pod/c1\n", "30 23 0:26 /pod /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"),
      (std::vector<std::string>{"/sys/fs/cgroup/c1/cpu.stat", "/sys/fs/cgroup/cpu.stat"}));
  EXPECT_TRUE(CpuStatPaths("", "").empty());
}

// The meter reports the cgroup that throttled most since it was made, by the difference.
TEST(CpuContentionTest, TheMeterCountsSinceItWasMade) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cpu_contention_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "child");
  auto write = [](const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p) << text;
  };
  write(dir / "cpu.stat", "nr_throttled 5\nthrottled_usec 1000\n");
  write(dir / "child/cpu.stat", "nr_throttled 1\nthrottled_usec 10\n");
  CgroupThrottleMeter meter({(dir / "child/cpu.stat").string(), (dir / "cpu.stat").string(),
                             (dir / "missing/cpu.stat").string()});
  EXPECT_EQ(meter.Since().count.throttled_ns, 0u);
  EXPECT_EQ(meter.Since().cgroup, "");
  write(dir / "cpu.stat", "nr_throttled 9\nthrottled_usec 301000\n");
  write(dir / "child/cpu.stat", "nr_throttled 2\nthrottled_usec 2010\n");
  CgroupThrottleMeter::Reading r = meter.Since();
  EXPECT_EQ(r.count.throttled_ns, 300'000'000u);
  EXPECT_EQ(r.count.periods, 4u);
  EXPECT_EQ(r.cgroup, dir.string());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace uringload::core
