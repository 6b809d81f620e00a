#include "net/base/check.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace uringload {

void CheckFailed(const char* file, int line, const char* condition, const char* format, ...) {
  std::fprintf(stderr, "uringload: invariant broken at %s:%d: %s (", file, line, condition);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, ")\n");
  std::fflush(stderr);
  std::abort();
}

}  // namespace uringload
