#include "tests/support/temp_folder.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace uringload::testing {

TempFolder::TempFolder(const std::string& prefix) {
  std::string pattern = "/tmp/" + prefix + "-XXXXXX";
  if (mkdtemp(pattern.data()) != nullptr) folder_ = pattern;
}

TempFolder::~TempFolder() {
  std::error_code ignored;
  if (ok()) std::filesystem::remove_all(folder_, ignored);
}

std::string TempFolder::Write(const std::string& name, const std::string& text) const {
  std::string path = Path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace uringload::testing
