// Which `uringload` binary the end-to-end tests run: the one this build made, or a checked
// (sanitizer) build's named by URINGLOAD_CHECKED_BINARY. scripts/test --sanitize runs the
// plain build's test programs against the ASan and TSan binaries, so the sanitizer builds
// compile only the program and the unit tests.
#pragma once

namespace uringload::testing {

// URINGLOAD_CHECKED_BINARY when set, else this build's cli/uringload.
const char* UringloadBinary();

// True when the binary under test is a checked build: several times slower per request, so
// tests check counts there and measured rates and latencies only against the shipped build.
bool BinaryIsChecked();

}  // namespace uringload::testing
