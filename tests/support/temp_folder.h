// TempFolder: a fresh folder under /tmp for one test's files (data files, targets files,
// results), removed with everything in it when the test ends.
#pragma once

#include <string>

namespace uringload::testing {

class TempFolder {
 public:
  explicit TempFolder(const std::string& prefix = "uringload-test");
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  bool ok() const { return !folder_.empty(); }
  const std::string& path() const { return folder_; }
  // The path of `name` in the folder.
  std::string Path(const std::string& name) const { return folder_ + "/" + name; }
  // Writes `text` to `name` in the folder; returns its path.
  std::string Write(const std::string& name, const std::string& text) const;

 private:
  std::string folder_;
};

}  // namespace uringload::testing
