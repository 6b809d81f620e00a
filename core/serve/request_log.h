// RequestLog: `serve --log-requests FILE`, every request as it arrived (an HTTP/2 one as the
// text Http2ServerSession keeps), for checking what a client sent (templated bodies, header
// values, order). Each record is a line "# request SIZE" and then SIZE bytes of the request
// and a newline. A worker gathers records in its own buffer and appends it to the file in one
// write of at least 64 KiB (or at its end), so workers never take a lock and the hot path
// makes no system call per request.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "net/listener.h"

namespace uringload::core {

class RequestLog {
 public:
  // Creates or truncates `path`; errors are one line naming it.
  static absl::StatusOr<std::shared_ptr<RequestLog>> Open(const std::string& path);

  // One worker's records.
  class Writer {
   public:
    explicit Writer(RequestLog* log) : log_(log) {}
    ~Writer() { Flush(); }
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    void Add(std::string_view request);
    void Flush();

   private:
    static constexpr size_t kFlushBytes = 64 * 1024;
    RequestLog* log_;
    std::string buffer_;
  };

 private:
  explicit RequestLog(net::UniqueFd fd) : fd_(std::move(fd)) {}
  net::UniqueFd fd_;  // O_APPEND: each write lands whole at the end.
};

}  // namespace uringload::core
