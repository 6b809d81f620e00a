// End-to-end, timed (so it runs alone): the open model's arrivals as a server sees them.
// aiohttp notes when each request arrives; evenly spaced requests come at a steady pace,
// --arrival poisson with the spread of a Poisson process (gaps whose standard deviation is
// their mean), gamma:K burstier below 1; every request once, and a bad value is refused
// before any traffic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/support/stream_server.h"

namespace uringload::testing {
namespace {

constexpr int kArrivalRequests = 400;

// The coefficient of variation of the gaps between the server's arrivals (-1: too few).
double ArrivalVariation(const FlatJson& counts) {
  std::vector<double> at;
  for (int k = 0; counts.count("arrivals." + std::to_string(k)) > 0; ++k) {
    at.push_back(std::stod(counts.at("arrivals." + std::to_string(k))));
  }
  if (at.size() < 3) return -1;
  std::vector<double> gaps;
  for (size_t k = 1; k < at.size(); ++k) gaps.push_back(at[k] - at[k - 1]);
  double mean = 0, squares = 0;
  for (double g : gaps) mean += g / gaps.size();
  for (double g : gaps) squares += (g - mean) * (g - mean) / gaps.size();
  return std::sqrt(squares) / mean;
}

// -R 200 for 400 requests, arriving as `arrival` says: every one ok, and the spread of the
// gaps the server saw.
double RunAndMeasureSpread(const std::string& arrival) {
  StreamServer server;
  EXPECT_TRUE(server.ok());
  std::vector<std::string> args = {"-R", "200", "-n", std::to_string(kArrivalRequests), "-c", "50"};
  if (!arrival.empty()) args.insert(args.end(), {"--arrival", arrival, "--seed", "7"});
  args.push_back(server.Url("/arrive"));
  RunOutput run = RunUringload(args);
  EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), static_cast<uint64_t>(kArrivalRequests));
  EXPECT_EQ(run.json["arrival"], arrival.empty() ? "even" : arrival);
  FlatJson counts = server.Stop();
  EXPECT_EQ(JsonCount(counts, "requests"), static_cast<uint64_t>(kArrivalRequests));
  return ArrivalVariation(counts);
}

TEST(ArrivalsE2ETest, EvenPoissonAndGammaArrivalsAtTheServer) {
  // 5 ms apart, give or take the server's own wake-ups.
  EXPECT_LT(RunAndMeasureSpread(""), 0.4);
  // Exponential gaps: a spread of 1 (400 gaps: within about ±0.15).
  double poisson = RunAndMeasureSpread("poisson");
  EXPECT_GT(poisson, 0.8);
  EXPECT_LT(poisson, 1.25);
  // Gamma of shape 0.25: a spread of 2.
  EXPECT_GT(RunAndMeasureSpread("gamma:0.25"), 1.5);
}

TEST(ArrivalsE2ETest, ABadArrivalIsRefusedBeforeAnyTraffic) {
  StreamServer server;
  ASSERT_TRUE(server.ok());
  for (std::vector<std::string> args :
       {std::vector<std::string>{"-R", "10", "--arrival", "gamma:0"},
        std::vector<std::string>{"-n", "10", "--arrival", "poisson"}}) {
    args.push_back(server.Url("/arrive"));
    RunOutput run = RunUringload(args);
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_NE(run.process.err.find("--arrival"), std::string::npos) << run.process.err;
    EXPECT_EQ(std::count(run.process.err.begin(), run.process.err.end(), '\n'), 1)
        << run.process.err;
  }
  EXPECT_EQ(JsonCount(server.Stop(), "requests"), 0u);
}

}  // namespace
}  // namespace uringload::testing
