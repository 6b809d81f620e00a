#include "core/expected_statuses.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "net/base/absl_view.h"

namespace uringload::core {

absl::StatusOr<StatusSet> ParseExpectedStatuses(std::string_view text) {
  StatusSet set;
  for (absl::string_view item : absl::StrSplit(AbslView(text), ',')) {
    item = absl::StripAsciiWhitespace(item);
    bool digits = item.size() == 3 && absl::ascii_isdigit(item[0]) && item[0] != '0';
    if (digits && absl::ascii_isdigit(item[1]) && absl::ascii_isdigit(item[2])) {
      int code = 0;
      (void)absl::SimpleAtoi(item, &code);
      set.set(static_cast<size_t>(code));
      continue;
    }
    if (digits && (item[1] == 'x' || item[1] == 'X') && (item[2] == 'x' || item[2] == 'X')) {
      int first = (item[0] - '0') * 100;
      for (int code = first; code < first + 100; ++code) set.set(static_cast<size_t>(code));
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "--expect-status: '", item, "' is not a status code (100-999) or a class (2xx)"));
  }
  return set;
}

}  // namespace uringload::core
