#include "core/cpu_pinning.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <string>
#include <thread>
#include <vector>

namespace uringload::core {
namespace {

TEST(CpuPinningTest, ParsesListsAndRangesInOrder) {
  std::vector<int> allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  std::string first = std::to_string(allowed[0]);
  EXPECT_EQ(*ParseCpuList(first), std::vector<int>{allowed[0]});
  if (allowed.size() < 2 || allowed[1] != allowed[0] + 1) GTEST_SKIP() << "needs two CPUs";
  std::string second = std::to_string(allowed[1]);
  EXPECT_EQ(*ParseCpuList(first + "-" + second), (std::vector<int>{allowed[0], allowed[1]}));
  EXPECT_EQ(*ParseCpuList(second + "," + first), (std::vector<int>{allowed[1], allowed[0]}));
}

TEST(CpuPinningTest, RejectsWhatIsNotAListOfUsableCpus) {
  std::string first = std::to_string(AllowedCpus()[0]);
  for (const std::string& bad :
       {std::string(""), std::string("a"), std::string("1-"), std::string("-1"), std::string("3-1"),
        std::string("0,,1"), std::string("1.5"), first + "," + first, std::string("1023"),
        std::string("99999999999")}) {
    absl::StatusOr<std::vector<int>> cpus = ParseCpuList(bad);
    ASSERT_FALSE(cpus.ok()) << "'" << bad << "'";
    EXPECT_EQ(cpus.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(cpus.status().message().find("--cpus: '" + bad + "'"), std::string::npos)
        << cpus.status().message();
  }
}

TEST(CpuPinningTest, WorkersTakeTheListRoundRobin) {
  std::vector<int> cpus = {4, 6};
  EXPECT_EQ(CpuOfWorker(cpus, 0), 4);
  EXPECT_EQ(CpuOfWorker(cpus, 1), 6);
  EXPECT_EQ(CpuOfWorker(cpus, 2), 4);
  EXPECT_EQ(CpuOfWorker({}, 3), -1);
}

TEST(CpuPinningTest, FormatsRunsAsRanges) {
  EXPECT_EQ(FormatCpuList(std::vector<int>{0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_EQ(FormatCpuList(std::vector<int>{3}), "3");
  EXPECT_EQ(FormatCpuList(std::vector<int>{1, 0}), "1,0");
}

TEST(CpuPinningTest, PinsTheCallingThreadOnly) {
  std::vector<int> before = AllowedCpus();
  int cpu = before.back();
  cpu_set_t seen;
  absl::Status status;
  std::thread worker([&] {
    status = PinThisThread(cpu);
    CPU_ZERO(&seen);
    sched_getaffinity(0, sizeof(seen), &seen);  // 0: this thread.
  });
  worker.join();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(CPU_COUNT(&seen), 1);
  EXPECT_TRUE(CPU_ISSET(cpu, &seen));
  EXPECT_EQ(AllowedCpus(), before);  // The caller is not pinned.
}

}  // namespace
}  // namespace uringload::core
