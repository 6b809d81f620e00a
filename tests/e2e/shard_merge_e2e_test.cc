// End-to-end: one run split over three `uringload run --shard K/3` processes at once against
// nginx, then `uringload merge`: every index 0..N-1 requested exactly once across the shards
// (nginx's access log), the merged counts equal N and nginx's, and merge refuses incomplete
// or mixed sets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/support/nginx.h"

namespace uringload::testing {
namespace {

std::string TempPath() {
  char path[] = "/tmp/uringload-shard-XXXXXX";
  close(mkstemp(path));
  return path;
}

FlatJson ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<FlatJson> json = FlattenJson(text);
  return json.ok() ? *json : FlatJson{};
}

ProcessResult Merge(std::vector<std::string> files, const std::string& json) {
  std::vector<std::string> argv = {URINGLOAD_BINARY, "merge"};
  argv.insert(argv.end(), files.begin(), files.end());
  argv.insert(argv.end(), {"--json", json, "-q"});
  return RunProcess(argv, 60);
}

class ShardMergeTest : public ::testing::Test {
 protected:
  // Runs the S shards of `-n n` at once, each writing its JSON; returns the paths.
  std::vector<std::string> RunShards(const NginxServer& nginx, uint64_t n, int shards,
                                     const std::string& run_id) {
    std::vector<std::string> paths;
    std::vector<std::unique_ptr<BackgroundProcess>> processes;
    for (int k = 0; k < shards; ++k) {
      paths.push_back(TempPath());
      processes.push_back(std::make_unique<BackgroundProcess>(std::vector<std::string>{
          URINGLOAD_BINARY, "run", "-n", std::to_string(n), "-c", "30", "-t", "1", "--shard",
          std::to_string(k) + "/" + std::to_string(shards), "--run-id", run_id, "--json",
          paths.back(), "--quiet", nginx.Url("/{i}")}));
    }
    for (auto& process : processes) EXPECT_EQ(process->Wait(120), 0);
    files_.insert(files_.end(), paths.begin(), paths.end());
    return paths;
  }
  ~ShardMergeTest() override {
    for (const std::string& path : files_) unlink(path.c_str());
  }
  std::vector<std::string> files_;
};

TEST_F(ShardMergeTest, ShardsCoverEveryIndexOnceAndMergeExactly) {
  NginxServer nginx;
  ASSERT_TRUE(nginx.ok());
  constexpr uint64_t kRequests = 30'000;
  std::vector<std::string> shards = RunShards(nginx, kRequests, 3, "e2e-run");
  uint64_t shard_ok = 0;
  for (int k = 0; k < 3; ++k) {
    FlatJson j = ReadJson(shards[k]);
    EXPECT_EQ(JsonCount(j, "shard.index"), static_cast<uint64_t>(k));
    EXPECT_EQ(JsonCount(j, "requests.planned"), kRequests / 3);
    shard_ok += JsonCount(j, "outcomes.ok");
  }
  EXPECT_EQ(shard_ok, kRequests);
  std::map<std::string, int> seen;
  for (const std::string& path : nginx.PathsLogged()) ++seen[path];
  EXPECT_EQ(seen.size(), kRequests);
  for (uint64_t i = 0; i < kRequests; ++i) {
    auto it = seen.find("/" + std::to_string(i));
    ASSERT_NE(it, seen.end()) << "index " << i << " never requested";
    ASSERT_EQ(it->second, 1) << "index " << i;
  }

  std::string merged_path = TempPath();
  files_.push_back(merged_path);
  ProcessResult merged = Merge({shards[2], shards[0], shards[1]}, merged_path);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  RunOutput out{.process = merged, .json = ReadJson(merged_path)};
  ExpectAllOk(out, kRequests);
  EXPECT_EQ(nginx.RequestsLogged(), kRequests);
  EXPECT_EQ(JsonCount(out.json, "merged_shards"), 3u);
  EXPECT_EQ(JsonCount(out.json, "latency_histogram.count"), kRequests);
  EXPECT_EQ(JsonCount(out.json, "connections.opened"), 30u);
  EXPECT_EQ(out.json.at("run_id"), "e2e-run");
}

TEST_F(ShardMergeTest, RefusesIncompleteAndMixedSets) {
  NginxServer nginx;
  ASSERT_TRUE(nginx.ok());
  std::vector<std::string> a = RunShards(nginx, 300, 3, "run-a");
  std::vector<std::string> b = RunShards(nginx, 300, 3, "run-b");
  std::string out = TempPath();
  files_.push_back(out);
  ProcessResult missing = Merge({a[0], a[2]}, out);
  EXPECT_EQ(missing.exit_code, 4);
  EXPECT_EQ(missing.err, "uringload: error: run 'run-a': shard 1 of 3 missing\n");
  ProcessResult mixed = Merge({a[0], b[1], a[2]}, out);
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("not shards of one run"), std::string::npos) << mixed.err;
  ProcessResult twice = Merge({a[0], a[1], a[1], a[2]}, out);
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("are both shard 1"), std::string::npos) << twice.err;
}

}  // namespace
}  // namespace uringload::testing
