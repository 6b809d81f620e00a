#include "core/file_contents.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace uringload::core {

absl::StatusOr<std::string> ReadRegularFile(const std::string& what, const std::string& path) {
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", path, "': ", why));
  };
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(strerror(errno));
  std::string contents;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fail(S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
  }
  contents.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = read(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : 0;
      close(fd);
      return fail(error != 0 ? strerror(error) : "changed size while being read");
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return contents;
}

}  // namespace uringload::core
