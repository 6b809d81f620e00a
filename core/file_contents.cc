#include "core/file_contents.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/base/status_macros.h"

namespace uringload::core {

namespace {

// An open descriptor of the regular file at `path` and its size, or why not.
absl::Status OpenRegular(const std::string& what, const std::string& path, int* fd, size_t* size) {
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", path, "': ", why));
  };
  *fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd < 0) return fail(strerror(errno));
  struct stat st {};
  if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(*fd);
    return fail(S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
  }
  *size = static_cast<size_t>(st.st_size);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadRegularFile(const std::string& what, const std::string& path) {
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", path, "': ", why));
  };
  int fd = -1;
  size_t size = 0;
  URINGLOAD_RETURN_IF_ERROR(OpenRegular(what, path, &fd, &size));
  std::string contents;
  contents.resize(size);
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

absl::StatusOr<MappedFile> MappedFile::Map(const std::string& what, const std::string& path) {
  int fd = -1;
  size_t size = 0;
  URINGLOAD_RETURN_IF_ERROR(OpenRegular(what, path, &fd, &size));
  MappedFile file;
  if (size > 0) {
    void* data = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int error = errno;
    close(fd);
    if (data == MAP_FAILED) {
      return absl::InvalidArgumentError(absl::StrCat(what, " '", path, "': ", strerror(error)));
    }
    file.data_ = static_cast<const char*>(data);
    file.size_ = size;
  } else {
    close(fd);
  }
  return file;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
}

}  // namespace uringload::core
