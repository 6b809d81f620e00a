// End-to-end: one run split over three `uringload run --shard K/3` processes at once against
// nginx, then `uringload merge`: every index 0..N-1 requested exactly once across the shards
// (nginx's access log), the merged counts equal N and nginx's, and merge refuses incomplete
// or mixed sets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/support/nginx.h"
#include "tests/support/uringload_binary.h"

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
  std::vector<std::string> argv = {UringloadBinary(), "merge"};
  argv.insert(argv.end(), files.begin(), files.end());
  argv.insert(argv.end(), {"--json", json, "-q"});
  return RunProcess(argv, 60);
}

class ShardMergeTest : public ::testing::Test {
 protected:
  // Runs the S shards of `-n n` at once, each writing its JSON; returns the paths.
  std::vector<std::string> RunShards(const NginxServer& nginx, uint64_t n, int shards,
                                     const std::string& run_id,
                                     std::vector<std::string> more = {}) {
    std::vector<std::string> paths;
    std::vector<std::unique_ptr<BackgroundProcess>> processes;
    for (int k = 0; k < shards; ++k) {
      paths.push_back(TempPath());
      std::vector<std::string> argv = {UringloadBinary(),
                                       "run",
                                       "-n",
                                       std::to_string(n),
                                       "-c",
                                       "30",
                                       "-t",
                                       "1",
                                       "--shard",
                                       std::to_string(k) + "/" + std::to_string(shards),
                                       "--run-id",
                                       run_id,
                                       "--json",
                                       paths.back(),
                                       "--quiet"};
      argv.insert(argv.end(), more.begin(), more.end());
      argv.push_back(nginx.Url("/{i}"));
      processes.push_back(std::make_unique<BackgroundProcess>(argv));
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

// Over HTTP/2 (h2c, 4 streams per connection): every index once, over HTTP/2 at nginx; the
// merge adds the shards' protocol counts, and `report` renders them.
TEST_F(ShardMergeTest, Http2ShardsMergeTheirProtocolCounts) {
  NginxServer nginx({.http2 = true});
  ASSERT_TRUE(nginx.ok());
  constexpr uint64_t kRequests = 6'000;
  std::vector<std::string> shards =
      RunShards(nginx, kRequests, 2, "e2e-h2", {"--http2", "-p", "4"});
  std::string merged_path = TempPath();
  files_.push_back(merged_path);
  ProcessResult merged = Merge(shards, merged_path);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  RunOutput out{.process = merged, .json = ReadJson(merged_path)};
  ExpectAllOk(out, kRequests);
  EXPECT_EQ(JsonCount(out.json, "connections.opened"), 30u);
  EXPECT_EQ(JsonCount(out.json, "connections.protocols.h2"), 30u);
  EXPECT_EQ(JsonCount(out.json, "connections.protocols.http/1.1"), 0u);
  EXPECT_EQ(nginx.RequestsLoggedWith("HTTP/2.0"), kRequests);
  std::set<std::string> paths;
  for (const std::string& path : nginx.PathsLogged()) paths.insert(path);
  EXPECT_EQ(paths.size(), kRequests);

  std::string html = TempPath();
  files_.push_back(html);
  ProcessResult report = RunProcess({UringloadBinary(), "report", "-o", html, merged_path}, 30);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::ifstream in(html);
  std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<tr><th>connections HTTP/1.1 / HTTP/2</th><td>0 / 30</td></tr>"),
            std::string::npos);
}

// --start-at: every shard sets up, then all begin at the same moment (here within 100 ms).
TEST_F(ShardMergeTest, ShardsStartTogetherAtStartAt) {
  NginxServer nginx;
  ASSERT_TRUE(nginx.ok());
  absl::Time at = absl::Now() + absl::Seconds(2);
  std::string start =
      absl::StrCat(absl::ToUnixMillis(at) / 1000, ".", absl::ToUnixMillis(at) % 1000 / 100);
  std::vector<std::string> shards = RunShards(nginx, 3'000, 3, "together", {"--start-at", start});
  for (const std::string& path : shards) {
    FlatJson j = ReadJson(path);
    double skew = 0;
    ASSERT_TRUE(absl::SimpleAtod(j["start_skew_seconds"], &skew)) << path;
    EXPECT_GE(skew, 0.0);
    EXPECT_LT(skew, 0.1);
    EXPECT_EQ(JsonCount(j, "outcomes.ok"), 1'000u);
  }
  std::string merged_path = TempPath();
  files_.push_back(merged_path);
  ASSERT_EQ(Merge(shards, merged_path).exit_code, 0);
  EXPECT_EQ(JsonCount(ReadJson(merged_path), "outcomes.ok"), 3'000u);
  ProcessResult late =
      RunProcess({UringloadBinary(), "run", "--start-at", "1000", nginx.Url("/")}, 30);
  EXPECT_EQ(late.exit_code, 2);
  EXPECT_EQ(nginx.RequestsLogged(), 3'000u);  // The refused run sent nothing.
}

// --preconnect: each shard opens its connections while it waits for --start-at, then uses
// exactly those (the order itself is checked on the fake loop: worker_preconnect_test.cc).
TEST_F(ShardMergeTest, PreconnectOpensEveryShardsConnectionsBeforeTheStart) {
  NginxServer nginx;
  ASSERT_TRUE(nginx.ok());
  absl::Time at = absl::Now() + absl::Seconds(2);
  std::string start =
      absl::StrCat(absl::ToUnixMillis(at) / 1000, ".", absl::ToUnixMillis(at) % 1000 / 100);
  std::vector<std::string> shards =
      RunShards(nginx, 3'000, 3, "warm", {"--start-at", start, "--preconnect"});
  for (const std::string& path : shards) {
    FlatJson j = ReadJson(path);
    EXPECT_EQ(JsonCount(j, "connections.preconnected"), 10u) << path;
    EXPECT_EQ(JsonCount(j, "connections.opened"), 10u) << path;
    EXPECT_EQ(JsonCount(j, "outcomes.ok"), 1'000u) << path;
  }
  std::string merged_path = TempPath();
  files_.push_back(merged_path);
  ASSERT_EQ(Merge(shards, merged_path).exit_code, 0);
  EXPECT_EQ(JsonCount(ReadJson(merged_path), "connections.preconnected"), 30u);
  EXPECT_EQ(nginx.RequestsLogged(), 3'000u);
  ProcessResult alone = RunProcess({UringloadBinary(), "run", "--preconnect", nginx.Url("/")}, 30);
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--preconnect needs --start-at"), std::string::npos) << alone.err;
  EXPECT_EQ(nginx.RequestsLogged(), 3'000u);  // The refused run sent nothing.
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
