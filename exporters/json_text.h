// JSON documents of uringload (run results, serve summaries) are built with nlohmann::json
// (Debian's nlohmann-json3-dev) and written by DumpJson: keys in the order they were added,
// two-space indents, and always valid UTF-8: bytes from the command line or the network
// that are not UTF-8 (a raw 0xff in a URL) become U+FFFD instead of breaking the file.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace uringload::exporters {

using Json = nlohmann::ordered_json;

inline std::string DumpJson(const Json& document) {
  return document.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) + "\n";
}

}  // namespace uringload::exporters
