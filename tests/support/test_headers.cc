// The one source of uringload_test_headers, whose job is its precompiled header
// (tests/support/test_headers.h).
