#include "core/search/rate_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace uringload::core {
namespace {

// Runs a search against `passes` (the verdict of a step at a rate); the rates tried in order.
std::vector<double> Search(RateSearch& search, const std::function<bool(double)>& passes) {
  std::vector<double> rates;
  while (std::optional<double> rate = search.Next()) {
    rates.push_back(*rate);
    search.Record(passes(*rate));
  }
  return rates;
}

TEST(RateSearchTest, GrowsThenBisectsToWithinThePrecisionThenConfirms) {
  RateSearch search({.start_rate = 100, .precision = 0.02});
  std::vector<double> rates = Search(search, [](double r) { return r <= 1000; });
  EXPECT_EQ(search.outcome(), RateSearch::Outcome::kFound);
  EXPECT_LE(search.lower(), 1000);
  EXPECT_GE(search.lower(), 980);  // Within 2% below the true capacity.
  EXPECT_GT(search.upper(), 1000);
  EXPECT_LE(search.upper() - search.lower(), 0.02 * search.lower());
  ASSERT_GE(rates.size(), 6u);
  EXPECT_EQ(std::vector<double>(rates.begin(), rates.begin() + 6),
            (std::vector<double>{100, 200, 400, 800, 1600, 1200}));
  EXPECT_EQ(rates.back(), search.lower());  // The rate found, run once more.
  EXPECT_EQ(std::count(rates.begin(), rates.end(), search.lower()), 2);
  EXPECT_EQ(search.steps(), rates.size());
}

// The curve need not be monotonic: a rate that passed once and fails its confirmation is an
// upper end, and the search goes on below it.
TEST(RateSearchTest, ARefutedConfirmationSearchesOnBelowIt) {
  RateSearch search({.start_rate = 100, .precision = 0.02});
  int seen_990 = 0;
  Search(search, [&](double r) {
    if (r > 985 && r <= 1000) return ++seen_990 == 1;  // Passes once, then never again.
    return r <= 1000;
  });
  EXPECT_EQ(search.outcome(), RateSearch::Outcome::kFound);
  EXPECT_LE(search.lower(), 985);
  EXPECT_GE(search.lower(), 985 * 0.98);
}

TEST(RateSearchTest, AFailingStartRateFindsNone) {
  RateSearch search({.start_rate = 100});
  EXPECT_EQ(Search(search, [](double) { return false; }), std::vector<double>{100});
  EXPECT_EQ(search.outcome(), RateSearch::Outcome::kNoneMet);
  EXPECT_EQ(search.lower(), 0);
}

TEST(RateSearchTest, StopsAtTheMaximumRateAndAfterTheMaximumSteps) {
  RateSearch capped({.start_rate = 100, .max_rate = 500});
  EXPECT_EQ(Search(capped, [](double) { return true; }),
            (std::vector<double>{100, 200, 400, 500, 500}));
  EXPECT_EQ(capped.outcome(), RateSearch::Outcome::kFound);
  RateSearch short_search({.start_rate = 100, .max_steps = 3});
  EXPECT_EQ(Search(short_search, [](double r) { return r <= 1000; }).size(), 3u);
  EXPECT_EQ(short_search.outcome(), RateSearch::Outcome::kOutOfSteps);
}

// Steps too short to decide before anything passed let the rate rise; "none met" needs a
// rate shown to fail. After a pass, an undecided step bounds the search from above.
TEST(RateSearchTest, UndecidedStepsRaiseTheRateUntilOneDecides) {
  RateSearch search({.start_rate = 50, .precision = 0.02});
  std::vector<double> rates;
  while (std::optional<double> rate = search.Next()) {
    rates.push_back(*rate);
    if (*rate < 150) {
      search.RecordUndecided();  // Too few requests at 50/s and 100/s.
    } else {
      search.Record(*rate <= 238);
    }
  }
  EXPECT_EQ(search.outcome(), RateSearch::Outcome::kFound);
  EXPECT_EQ(std::vector<double>(rates.begin(), rates.begin() + 4),
            (std::vector<double>{50, 100, 200, 400}));
  EXPECT_GE(search.lower(), 233);
  EXPECT_LE(search.lower(), 238);

  RateSearch never({.start_rate = 100, .max_rate = 400});
  std::vector<double> tried;
  while (std::optional<double> rate = never.Next()) {
    tried.push_back(*rate);
    never.RecordUndecided();
  }
  EXPECT_EQ(never.outcome(), RateSearch::Outcome::kUndecided);
  EXPECT_EQ(tried, (std::vector<double>{100, 200, 400}));

  RateSearch after_a_pass({.start_rate = 100});
  after_a_pass.Record(true);
  after_a_pass.RecordUndecided();  // 200/s: an upper end, as a failure.
  EXPECT_EQ(after_a_pass.upper(), 200);
}

}  // namespace
}  // namespace uringload::core
