// URINGLOAD_RETURN_IF_ERROR(expr): returns the absl::Status that `expr` gives unless it is ok,
// the one way a function hands an error up (from a function returning absl::Status or
// absl::StatusOr). Named with the project's prefix: libprotobuf's headers define a
// RETURN_IF_ERROR of their own.
#pragma once

#include "absl/status/status.h"

#define URINGLOAD_RETURN_IF_ERROR(expr)                                     \
  do {                                                                      \
    if (::absl::Status uringload_status = (expr); !uringload_status.ok()) { \
      return uringload_status;                                              \
    }                                                                       \
  } while (false)
