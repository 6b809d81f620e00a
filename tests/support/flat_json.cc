#include "tests/support/flat_json.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "absl/strings/str_replace.h"
#include "nlohmann/json.hpp"

namespace uringload::testing {

FlatJson ReadFlatJson(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<FlatJson> json = FlattenJson(text);
  return json.ok() ? *json : FlatJson{};
}

// Parsed with nlohmann::json, the library uringload writes its JSON with: a document it
// rejects (invalid UTF-8, trailing garbage) fails here as it would in any strict reader.
absl::StatusOr<FlatJson> FlattenJson(std::string_view text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return absl::InvalidArgumentError("not a JSON document");
  FlatJson out;
  const nlohmann::json flat = doc.flatten();
  for (const auto& [pointer, value] : flat.items()) {
    // "/a/b/0" -> "a.b.0"; JSON pointer escapes ~1 and ~0 are '/' and '~'.
    std::string key = absl::StrReplaceAll(pointer.substr(1), {{"/", "."}});
    key = absl::StrReplaceAll(key, {{"~1", "/"}, {"~0", "~"}});
    out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return out;
}

uint64_t JsonCount(const FlatJson& json, const std::string& path) {
  auto it = json.find(path);
  if (it == json.end()) {
    ADD_FAILURE() << "JSON has no key " << path;
    return ~0ull;
  }
  char* end = nullptr;
  uint64_t value = std::strtoull(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0') {
    ADD_FAILURE() << "JSON key " << path << " is not a count: " << it->second;
    return ~0ull;
  }
  return value;
}

double JsonNumber(const FlatJson& json, const std::string& path) {
  auto it = json.find(path);
  char* end = nullptr;
  double value = it == json.end() ? 0 : std::strtod(it->second.c_str(), &end);
  if (it == json.end() || end == it->second.c_str() || *end != '\0') {
    ADD_FAILURE() << "JSON key " << path << " is not a number"
                  << (it == json.end() ? std::string() : ": " + it->second);
    return -1;
  }
  return value;
}

}  // namespace uringload::testing
