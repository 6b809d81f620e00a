#include "core/search/rate_search.h"

#include <algorithm>

namespace uringload::core {

RateSearch::RateSearch(const Settings& settings)
    : settings_(settings), rate_(std::min(settings.start_rate, settings.max_rate)) {}

std::optional<double> RateSearch::Next() const {
  if (phase_ == Phase::kDone) return std::nullopt;
  return rate_;
}

void RateSearch::Narrow() {
  if (upper_ - lower_ <= settings_.precision * lower_) {
    phase_ = Phase::kConfirm;
    rate_ = lower_;
  } else {
    phase_ = Phase::kBisect;
    rate_ = (lower_ + upper_) / 2;
  }
}

void RateSearch::RecordUndecided() {
  if (phase_ != Phase::kGrow || lower_ > 0) {
    Record(false);
    return;
  }
  ++steps_;
  if (rate_ >= settings_.max_rate) {
    phase_ = Phase::kDone;
    outcome_ = Outcome::kUndecided;
  } else {
    rate_ = std::min(rate_ * settings_.growth, settings_.max_rate);
  }
  if (phase_ != Phase::kDone && steps_ >= settings_.max_steps) {
    phase_ = Phase::kDone;
    outcome_ = Outcome::kOutOfSteps;
  }
}

void RateSearch::Record(bool passed) {
  if (phase_ == Phase::kDone) return;
  ++steps_;
  switch (phase_) {
    case Phase::kGrow:
      if (passed) {
        lower_ = rate_;
        passed_.push_back(rate_);
        if (rate_ >= settings_.max_rate) {
          phase_ = Phase::kConfirm;
        } else {
          rate_ = std::min(rate_ * settings_.growth, settings_.max_rate);
        }
      } else if (lower_ == 0) {
        phase_ = Phase::kDone;
        outcome_ = Outcome::kNoneMet;
      } else {
        upper_ = rate_;
        Narrow();
      }
      break;
    case Phase::kBisect:
      if (passed) {
        lower_ = rate_;
        passed_.push_back(rate_);
      } else {
        upper_ = rate_;
      }
      Narrow();
      break;
    case Phase::kConfirm:
      if (passed) {
        phase_ = Phase::kDone;
        outcome_ = Outcome::kFound;
        break;
      }
      // Refuted: it and every pass above it no longer count; the next highest pass is the
      // new lower end.
      upper_ = rate_;
      std::erase_if(passed_, [this](double r) { return r >= upper_; });
      if (passed_.empty()) {
        phase_ = Phase::kDone;
        outcome_ = Outcome::kNoneMet;
        lower_ = 0;
        break;
      }
      lower_ = *std::max_element(passed_.begin(), passed_.end());
      Narrow();
      break;
    case Phase::kDone:
      break;
  }
  if (phase_ != Phase::kDone && steps_ >= settings_.max_steps) {
    phase_ = Phase::kDone;
    outcome_ = Outcome::kOutOfSteps;
  }
}

}  // namespace uringload::core
