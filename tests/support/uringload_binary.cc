#include "tests/support/uringload_binary.h"

#include <stdlib.h>

namespace uringload::testing {
namespace {

const char* CheckedBinary() {
  const char* checked = getenv("URINGLOAD_CHECKED_BINARY");
  return checked != nullptr && *checked != '\0' ? checked : nullptr;
}

}  // namespace

const char* UringloadBinary() {
  return CheckedBinary() != nullptr ? CheckedBinary() : URINGLOAD_BUILT_BINARY;
}

bool BinaryIsChecked() { return CheckedBinary() != nullptr; }

}  // namespace uringload::testing
