// RateSearch: which rate `uringload search` runs next, from whether the steps before met every
// objective. The rate grows geometrically from the start rate until a step fails, then the
// bracket [highest pass, lowest fail] is bisected until it is within the precision; the rate
// found is then run once more and must pass again (the latency-vs-rate curve need not be
// monotonic: a failed confirmation becomes the new upper end and the search goes on below).
// A step too short to decide either way lets the rate rise before anything passed
// (RecordUndecided). No I/O: the command runs the steps and reports each verdict here.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace uringload::core {

class RateSearch {
 public:
  struct Settings {
    double start_rate = 100;
    double growth = 2;        // Factor between steps while growing.
    double precision = 0.02;  // Done when upper - lower <= precision x lower.
    double max_rate = 1e7;    // Growth stops here (it is then confirmed like any other).
    uint32_t max_steps = 40;
  };
  // kUndecided: no step had requests enough to show an objective met or failed.
  enum class Outcome { kRunning, kFound, kNoneMet, kOutOfSteps, kUndecided };

  explicit RateSearch(const Settings& settings);

  // The rate the next step runs at; none once the search is over.
  std::optional<double> Next() const;
  // Whether the next step is the confirmation of the rate found.
  bool confirming() const { return phase_ == Phase::kConfirm; }
  // The step at Next() met every objective (`passed`) or not.
  void Record(bool passed);
  // The step at Next() could show neither (too few requests even at its longest). Before any
  // rate passed, the rate rises: a higher one brings more requests in the same time, and "no
  // rate met" needs a rate shown to fail. After one passed, it counts as a failure: the
  // search reports only rates shown to meet every objective.
  void RecordUndecided();

  Outcome outcome() const { return outcome_; }
  double lower() const { return lower_; }  // The highest rate that passed (0: none).
  double upper() const { return upper_; }  // The lowest rate that failed (0: none).
  uint32_t steps() const { return steps_; }

 private:
  enum class Phase { kGrow, kBisect, kConfirm, kDone };
  void Narrow();  // After a new bracket end: bisect, or confirm when precise enough.

  Settings settings_;
  Phase phase_ = Phase::kGrow;
  Outcome outcome_ = Outcome::kRunning;
  double rate_;  // The next step's.
  double lower_ = 0;
  double upper_ = 0;
  std::vector<double> passed_;  // Every rate that passed and was not refuted since.
  uint32_t steps_ = 0;
};

}  // namespace uringload::core
