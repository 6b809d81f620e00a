// End-to-end: `run --timeline --report` against `serve` (delays and a few resets), then the
// report opened from a file URL by headless Chromium (Debian's): the page ran its script
// without an error, every chart drew points (read back from the DOM Chromium dumps after
// rendering), and a screenshot is kept as a test artifact (build/test-artifacts/report.png).
// `uringload report` on the same files writes the same page.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/temp_folder.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> Chromium(const std::string& url, std::vector<std::string> flags) {
  std::vector<std::string> argv = {
      "/usr/bin/chromium",       "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
      "--enable-logging=stderr", "--v=0"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(url);
  return argv;
}

TEST(ReportE2ETest, ChromiumRendersEveryChartWithoutErrors) {
  UringloadServer server({"--delay", "uniform:1ms-30ms", "--fault-reset", "0.02"});
  ASSERT_TRUE(server.ok());
  TempFolder folder("uringload-report");  // Removed however the test ends.
  ASSERT_TRUE(folder.ok());
  const std::string& dir = folder.path();
  std::string html = dir + "/report.html";
  ProcessResult run =
      RunProcess({UringloadBinary(), "run", "-q", "-d", "3s", "-c", "40", "-t", "1", "--interval",
                  "500ms", "--json", dir + "/r.json", "--timeline", dir + "/t.ndjson", "--report",
                  html, "http://127.0.0.1:" + std::to_string(server.port()) + "/{i}"},
                 60);
  ASSERT_EQ(run.exit_code, 0) << run.err;

  // The plan and the machine it ran on.
  std::string page = ReadFile(html);
  EXPECT_NE(page.find("<tr><th>machine</th><td>"), std::string::npos);
  EXPECT_NE(page.find(" CPUs, uringload "), std::string::npos);

  ProcessResult dom = RunProcess(Chromium("file://" + html, {"--dump-dom"}), 90);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_NE(dom.out.find("data-rendered=\"yes\""), std::string::npos) << dom.out.substr(0, 400);
  EXPECT_EQ(dom.out.find("data-errors=\""), std::string::npos);  // Set by window.onerror.
  EXPECT_EQ(dom.err.find("Uncaught"), std::string::npos) << dom.err;
  std::regex chart(
      "<svg id=\"([a-z-]+)\"[^>]* data-points=\"([0-9]+)\"[^>]* data-rendered-points=\"([0-9]+)\"");
  int charts = 0;
  for (auto it = std::sregex_iterator(dom.out.begin(), dom.out.end(), chart);
       it != std::sregex_iterator(); ++it, ++charts) {
    EXPECT_GT(std::stoi((*it)[3]), 0) << (*it)[1] << " drew nothing";
    EXPECT_EQ((*it)[2], (*it)[3]) << (*it)[1];
  }
  // Throughput, latency over time, connections, and the histograms of the latency, the time
  // to the head and the time to the first byte.
  EXPECT_EQ(charts, 6);

  std::filesystem::create_directories(URINGLOAD_ARTIFACTS);
  std::string png = std::string(URINGLOAD_ARTIFACTS) + "/report.png";
  unlink(png.c_str());
  ProcessResult shot =
      RunProcess(Chromium("file://" + html, {"--window-size=900,2400", "--screenshot=" + png}), 90);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  std::string image = ReadFile(png);
  ASSERT_GT(image.size(), 20'000u);
  EXPECT_EQ(image.substr(1, 3), "PNG");

  // `uringload report` on the run's files writes the same page.
  std::string again = dir + "/again.html";
  ProcessResult report = RunProcess(
      {UringloadBinary(), "report", "--timeline", dir + "/t.ndjson", "-o", again, dir + "/r.json"},
      30);
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(ReadFile(again), ReadFile(html));
}

}  // namespace
}  // namespace uringload::testing
