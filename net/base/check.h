// URINGLOAD_CHECK: an invariant that is checked in every build, Release included, as
// TigerBeetle's asserts are. A broken invariant means the accounting can no longer be trusted,
// so the process aborts at once with the file, line, condition and what the caller names
// (slot, state, op), instead of carrying a wrong count into a result. The condition costs one
// compare and a predicted branch; the message is formatted only on failure. A check must
// have no side effect: the condition is evaluated exactly once, and nothing else runs.
// The base of every library (net, proto and what uses them): it includes nothing of ours.
#pragma once

namespace uringload {

[[noreturn, gnu::cold]] void CheckFailed(const char* file, int line, const char* condition,
                                         const char* format, ...)
    __attribute__((format(printf, 4, 5)));

}  // namespace uringload

// URINGLOAD_CHECK(cond, "slot %u state %d", slot, state): aborts when cond is false.
#define URINGLOAD_CHECK(condition, ...)                                      \
  do {                                                                       \
    if (__builtin_expect(!(condition), 0)) {                                 \
      ::uringload::CheckFailed(__FILE__, __LINE__, #condition, __VA_ARGS__); \
    }                                                                        \
  } while (0)
