#include "core/run/arrival_process.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "net/base/absl_view.h"

namespace uringload::core {

absl::StatusOr<ArrivalProcess> ParseArrival(std::string_view text) {
  ArrivalProcess arrival;
  if (text == "even") return arrival;
  if (text == "poisson") {
    arrival.kind = ArrivalProcess::Kind::kPoisson;
    return arrival;
  }
  double shape = 0;
  if (text.starts_with("gamma:") && absl::SimpleAtod(AbslView(text.substr(6)), &shape) &&
      std::isfinite(shape) && shape >= kMinGammaShape && shape <= kMaxGammaShape) {
    arrival.kind = ArrivalProcess::Kind::kGamma;
    arrival.shape = shape;
    return arrival;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--arrival must be even, poisson or gamma:K (K from ", kMinGammaShape, " to ", kMaxGammaShape,
      ": below 1 burstier than Poisson, above 1 more regular), got '", AbslView(text), "'"));
}

std::string ArrivalName(const ArrivalProcess& arrival) {
  switch (arrival.kind) {
    case ArrivalProcess::Kind::kEven:
      return "even";
    case ArrivalProcess::Kind::kPoisson:
      return "poisson";
    case ArrivalProcess::Kind::kGamma:
      return absl::StrCat("gamma:", arrival.shape);
  }
  return "even";
}

}  // namespace uringload::core
