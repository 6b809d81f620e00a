#include "core/run/response_checks.h"

#include <utility>

#include "net/base/status_macros.h"

namespace uringload::core {

absl::StatusOr<ResponseChecks> MakeResponseChecks(const std::optional<std::string>& status,
                                                  const std::optional<std::string>& body_text) {
  ResponseChecks checks;
  if (status.has_value()) {
    URINGLOAD_ASSIGN_OR_RETURN(StatusSet set, ParseExpectedStatuses(*status));
    checks.statuses = set;
  }
  if (body_text.has_value()) {
    if (body_text->empty()) {
      return absl::InvalidArgumentError("--expect-body-contains: the text must not be empty");
    }
    checks.body = std::make_shared<const proto::BodyMatcher>(*body_text);
  }
  return checks;
}

}  // namespace uringload::core
