// URINGLOAD_RETURN_IF_ERROR(expr): returns the absl::Status that `expr` gives unless it is ok,
// the one way a function hands an error up (from a function returning absl::Status or
// absl::StatusOr). Named with the project's prefix: libprotobuf's headers define a
// RETURN_IF_ERROR of their own.
#pragma once

#include <utility>

#include "absl/status/status.h"

#define URINGLOAD_RETURN_IF_ERROR(expr)                                     \
  do {                                                                      \
    if (::absl::Status uringload_status = (expr); !uringload_status.ok()) { \
      return uringload_status;                                              \
    }                                                                       \
  } while (false)

// URINGLOAD_ASSIGN_OR_RETURN(decl, expr): `decl` (a declaration, `std::string text` or `auto
// plan`) takes the value of the absl::StatusOr that `expr` gives, or the function returns its
// status. One per line (the temporary is named by the line).
#define URINGLOAD_ASSIGN_OR_RETURN(decl, ...)                                                   \
  URINGLOAD_ASSIGN_OR_RETURN_IMPL(URINGLOAD_STATUS_CONCAT(uringload_statusor_, __LINE__), decl, \
                                  __VA_ARGS__)
#define URINGLOAD_ASSIGN_OR_RETURN_IMPL(statusor, decl, ...) \
  auto statusor = (__VA_ARGS__);                             \
  if (!statusor.ok()) return std::move(statusor).status();   \
  decl = *std::move(statusor)
#define URINGLOAD_STATUS_CONCAT(a, b) URINGLOAD_STATUS_CONCAT_INNER(a, b)
#define URINGLOAD_STATUS_CONCAT_INNER(a, b) a##b
