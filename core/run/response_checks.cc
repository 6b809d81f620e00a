#include "core/run/response_checks.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "net/base/status_macros.h"

namespace uringload::core {

absl::StatusOr<ResponseChecks> MakeResponseChecks(const std::optional<std::string>& status,
                                                  const std::optional<std::string>& body_text,
                                                  std::optional<int64_t> events, bool streams) {
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
  if (events.has_value()) {
    if (*events < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("--expect-events must be at least 1, got ", *events));
    }
    if (!streams) {
      return absl::InvalidArgumentError(
          "--expect-events needs --stream sse or ndjson: it counts a stream's events");
    }
    checks.events = static_cast<uint64_t>(*events);
  }
  return checks;
}

}  // namespace uringload::core
