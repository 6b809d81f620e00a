// RunHistograms: the client's histogram table (core/histogram_table.h): one row per duration
// histogram of a run besides the request latency. WorkerStats keeps the live histogram at the
// row's index; the snapshot, RunStats::Merge, the JSON writer and reader (and so `merge`), the
// Prometheus collector, the thresholds and the timeline go by the rows.
#pragma once

#include "core/histogram_table.h"
#include "core/run/run_stats.h"

namespace uringload::core {

using HistogramRow = HistogramRowOf<RunStats>;

inline constexpr HistogramRow kRunHistograms[] = {
    {.member = &RunStats::response_head,
     .measure = "head",
     .object = "",
     .stem = "head",
     .metric = "uringload_response_head_duration_seconds",
     .help = "Ok requests, from their start (as the request duration) to their response's "
             "complete head",
     .summary = "Head:",
     .note = "to the response's head",
     .timeline = true},
    {.member = &RunStats::first_byte,
     .measure = "ttfb",
     .object = "",
     .stem = "first_byte",
     .metric = "uringload_first_byte_duration_seconds",
     .help = "Ok requests with a body, from their start (as the request duration) to their "
             "body's first byte",
     .summary = "First byte:",
     .note = "to the body's first byte",
     .timeline = true},
    {.member = &RunStats::first_event,
     .measure = "first_event",
     .object = "streams",
     .stem = "first_event",
     .metric = "uringload_stream_first_event_duration_seconds",
     .help = "--stream: requests, from their start (as the request duration) to their "
             "response's first event",
     .shown_with = "streams",
     .summary = "First event:",
     .note = "to the stream's first event"},
    {.member = &RunStats::event_gap,
     .measure = "event_gap",
     .object = "streams",
     .stem = "event_gap",
     .metric = "uringload_stream_event_gap_duration_seconds",
     .help = "--stream: the gaps between a response's events, as they arrived",
     .shown_with = "streams",
     .summary = "Event gaps:",
     .note = "between a stream's events"},
    {.member = &RunStats::ttft,
     .measure = "ttft",
     .object = "llm",
     .stem = "ttft",
     .metric = "uringload_llm_ttft_seconds",
     .help = "--llm: answers, from the request's start (as the request duration) to the first "
             "delta that carries content",
     .shown_with = "llm",
     .summary = "TTFT:",
     .note = "to the first token"},
    {.member = &RunStats::itl,
     .measure = "itl",
     .object = "llm",
     .stem = "itl",
     .metric = "uringload_llm_itl_seconds",
     .help = "--llm: the gaps between an answer's content deltas, as they arrived",
     .shown_with = "llm",
     .summary = "ITL:",
     .note = "between tokens"},
    {.member = &RunStats::tpot,
     .measure = "tpot",
     .object = "llm",
     .stem = "tpot",
     .metric = "uringload_llm_tpot_seconds",
     .help = "--llm: each answer's (end - first token) / (output tokens - 1)",
     .shown_with = "llm",
     .summary = "TPOT:",
     .note = "per output token after the first"},
    {.member = &RunStats::connect,
     .measure = "connect",
     .object = "",
     .stem = "connect",
     .metric = "uringload_connect_duration_seconds",
     .help = "TCP connects, from the connect call to the established connection"},
    {.member = &RunStats::tls_handshake,
     .measure = "tls_handshake",
     .object = "",
     .stem = "tls_handshake",
     .metric = "uringload_tls_handshake_duration_seconds",
     .help = "TLS handshakes, from the TCP connection to the handshake's end",
     .shown_with = "tls"},
    {.member = &RunStats::grpc_first_message,
     .measure = "first_message",
     .object = "grpc",
     .stem = "first_message",
     .metric = "uringload_grpc_first_message_duration_seconds",
     .help = "gRPC calls, from their start (as the request duration) to their response's "
             "first message",
     .shown_with = "grpc"},
    {.member = &RunStats::iteration_duration,
     .measure = "iteration",
     .object = "iterations",
     .stem = "duration",
     .metric = "uringload_iteration_duration_seconds",
     .help = "Completed flow iterations, from their first send to their last answer",
     .shown_with = "iterations"},
};

}  // namespace uringload::core
