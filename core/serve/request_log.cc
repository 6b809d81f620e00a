#include "core/serve/request_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "net/base/check.h"

namespace uringload::core {

absl::StatusOr<std::shared_ptr<RequestLog>> RequestLog::Open(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--log-requests '", path, "': ", strerror(errno)));
  }
  return std::shared_ptr<RequestLog>(new RequestLog(net::UniqueFd(fd)));
}

void RequestLog::Writer::Add(std::string_view request) {
  absl::StrAppend(&buffer_, "# request ", request.size(), "\n");
  buffer_.append(request);
  buffer_.push_back('\n');
  if (buffer_.size() >= kFlushBytes) Flush();
}

void RequestLog::Writer::Flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = write(log_->fd_.get(), buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    // A log that cannot be written (a full disk) would silently lose what the user asked for.
    URINGLOAD_CHECK(n > 0, "--log-requests: write failed: %s", strerror(errno));
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
}

}  // namespace uringload::core
