# shellcheck shell=bash
# The libFuzzer targets (tests/fuzz/NAME_fuzz.cc), named once for the build
# (scripts/build-sanitizers fuzz) and the runs (scripts/fuzz).
# shellcheck disable=SC2034  # Used by the scripts that source this.
fuzz_targets=(response_parser request_parser tls_client http2_client grpc_body protobuf_field_path
  event_stream)
