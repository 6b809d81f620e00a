// JSON scanned in place, without a tree: a flat object's members as views of its text, and a
// string's escapes decoded only when it has any. For text read per request or per row (a
// --data NDJSON row), where building a document would allocate on every line.
#pragma once

#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace uringload::proto {

// A JSON string's contents (between its quotes, `raw`) decoded: a view of `raw` when it has no
// escape, else appended to `scratch` (never longer than `raw`).
absl::Status DecodeJsonString(std::string_view raw, std::string* scratch, std::string_view* out);

// Called for each member: its key (still escaped), its raw value (a string's contents between
// its quotes, or a number, true, false or null) and whether the value is a string.
using FlatMemberFn =
    absl::FunctionRef<absl::Status(std::string_view key, std::string_view raw, bool is_string)>;

// Calls `on_member` for each member of the flat JSON object `line`, in order, and stops at the
// first error it returns. An object or array as a value, or malformed text, is an error.
absl::Status ForEachFlatMember(std::string_view line, FlatMemberFn on_member);

}  // namespace uringload::proto
