// The rows of a counter table (core/counter_table.h) in a JSON document: written into the
// objects the document holds, read back from them. A row whose object is absent or null (the
// run had no TLS, no HTTP/3, no flow) is not written, and reads as 0.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/counter_table.h"
#include "exporters/json_text.h"

namespace uringload::exporters {

// The object at `path` (keys joined by '/') inside `doc`, or null when it is absent or null.
template <typename J>
J* CounterObject(J& doc, std::string_view path) {
  J* at = &doc;
  while (at->is_object()) {
    size_t slash = path.find('/');
    auto found = at->find(std::string(path.substr(0, slash)));
    if (found == at->end()) return nullptr;
    at = &*found;
    if (slash == std::string_view::npos) return at->is_object() ? at : nullptr;
    path.remove_prefix(slash + 1);
  }
  return nullptr;
}

template <typename Stats>
void WriteCounters(const Stats& s, Json& doc, std::span<const core::CounterRowOf<Stats>> rows) {
  for (const core::CounterRowOf<Stats>& row : rows) {
    if (row.key.empty()) continue;
    Json* object = CounterObject(doc, row.object);
    if (object == nullptr) continue;
    uint64_t value = s.*row.member;
    Json& out = (*object)[std::string(row.key)];
    if (row.merge == core::CounterMerge::kLeastNonZero && value == 0) {
      out = nullptr;  // No cap.
    } else if (row.nanoseconds) {
      out = value / 1e9;
    } else {
      out = value;
    }
  }
}

// Fails (false, with the key in `bad_key`) on a value that is not a count (seconds, for a
// duration).
template <typename Stats>
bool ReadCounters(const Json& doc, Stats& s, std::string* bad_key,
                  std::span<const core::CounterRowOf<Stats>> rows) {
  for (const core::CounterRowOf<Stats>& row : rows) {
    if (row.key.empty()) continue;
    const Json* object = CounterObject(doc, row.object);
    if (object == nullptr) continue;
    auto found = object->find(std::string(row.key));
    if (found == object->end() || found->is_null()) continue;  // Older results, or no cap.
    if (row.nanoseconds ? !found->is_number() || found->template get<double>() < 0
                        : !found->is_number_unsigned()) {
      *bad_key = std::string(row.key);
      return false;
    }
    s.*row.member = row.nanoseconds
                        ? static_cast<uint64_t>(found->template get<double>() * 1e9 + 0.5)
                        : found->template get<uint64_t>();
  }
  return true;
}

}  // namespace uringload::exporters
